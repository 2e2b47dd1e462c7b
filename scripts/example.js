// `npm run example -- <name>`: runs examples/<name>/server.ts, compiled by `npm run build`.
import { existsSync, readdirSync } from 'node:fs';
import { spawn } from 'node:child_process';

const examples = readdirSync(new URL('../examples', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'shared')
  .map((entry) => entry.name);
const name = process.argv[2];
const entry = new URL(`../build/examples/${name}/server.js`, import.meta.url);
if (name === undefined || !examples.includes(name) || !existsSync(entry)) {
  console.error(`usage: npm run example -- <name>, with <name> one of: ${examples.join(', ')}`);
  process.exit(2);
}
const child = spawn(process.execPath, [entry.pathname], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
