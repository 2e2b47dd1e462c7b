// Removes compiled output before a build, so a deleted source or test never lingers in it.
import { readdirSync, rmSync } from 'node:fs';

const root = new URL('..', import.meta.url);
rmSync(new URL('build', root), { recursive: true, force: true });
for (const pkg of readdirSync(new URL('src', root))) {
  rmSync(new URL(`src/${pkg}/dist`, root), { recursive: true, force: true });
}
