/**
 * What the installed frameworks support, for the suites that scripts/framework-versions.js runs
 * against each version users run. @koa/router 12 to 15: its trailing wildcard (path-to-regexp 8, from @koa/router 14 on,
 * names it; 6 has a bare group), and `exclusive: 'specificity'`, which 15 added (before, any truthy
 * `exclusive` runs the last matched layer).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
/** The version of package `name`, read from the package.json above its main file (an `exports` map may list no package.json). */
function versionOf(name: string): string {
  const main = require.resolve(name);
  for (let folder = dirname(main); folder !== dirname(folder); folder = dirname(folder)) {
    const candidate = join(folder, 'package.json');
    try {
      const parsed = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === name) return parsed.version!;
    } catch {
      // No package.json here: one folder up.
    }
  }
  throw new Error(`no package.json of ${name} above ${main}`);
}
const majorOf = (name: string): number => Number(versionOf(name).split('.')[0]);

export const KOA_ROUTER_MAJOR = majorOf('@koa/router');
/** A trailing wildcard segment, as the installed @koa/router spells it. */
export const KOA_WILDCARD = KOA_ROUTER_MAJOR >= 14 ? '*rest' : '(.*)';
/** Whether `exclusive: 'specificity'` is a mode of the installed @koa/router. */
export const KOA_SPECIFICITY = KOA_ROUTER_MAJOR >= 15;

/** A Nest middleware route of every path: Nest 11 on takes path-to-regexp 8's named wildcard, Nest 10 a bare `*`. */
export const NEST_EVERY_PATH = majorOf('@nestjs/core') >= 11 ? '{*splat}' : '*';
