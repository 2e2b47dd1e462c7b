/**
 * What the installed @koa/router supports, for the suites that scripts/framework-versions.js runs
 * against @koa/router 12 to 15: its trailing wildcard (path-to-regexp 8, from @koa/router 14 on,
 * names it; 6 has a bare group), and `exclusive: 'specificity'`, which 15 added (before, any truthy
 * `exclusive` runs the last matched layer).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
/** @koa/router's package.json, found from its main file: its `exports` lists no package.json. */
function packageJsonOf(main: string): string {
  for (let folder = dirname(main); folder !== dirname(folder); folder = dirname(folder)) {
    const candidate = join(folder, 'package.json');
    try {
      const parsed = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === '@koa/router') return parsed.version!;
    } catch {
      // No package.json here: one folder up.
    }
  }
  throw new Error(`no package.json of @koa/router above ${main}`);
}
const version = packageJsonOf(require.resolve('@koa/router'));

export const KOA_ROUTER_MAJOR = Number(version.split('.')[0]);
/** A trailing wildcard segment, as the installed @koa/router spells it. */
export const KOA_WILDCARD = KOA_ROUTER_MAJOR >= 14 ? '*rest' : '(.*)';
/** Whether `exclusive: 'specificity'` is a mode of the installed @koa/router. */
export const KOA_SPECIFICITY = KOA_ROUTER_MAJOR >= 15;
