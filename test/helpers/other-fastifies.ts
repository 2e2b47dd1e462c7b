/**
 * fastify as applications hold it besides the one copy in the repository's node_modules:
 * - a second copy with a find-my-way of its own (a nested install, a workspace's own
 *   dependencies), whose router `@lib/cors/fastify` still reaches;
 * - bundled into one file with its dependencies (a server bundle for a serverless platform), whose
 *   find-my-way is no module of its own: the plugin reaches fastify's router through the
 *   find-my-way fastify's not-found router is made by.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { buildSync } from 'esbuild';
import type Fastify from 'fastify';

const require = createRequire(import.meta.url);

/** A fastify factory, the file it was loaded from, and a function that removes its files. */
export interface OtherFastify {
  Fastify: typeof Fastify;
  main: string;
  remove(): void;
}

/** A copy of fastify and of its find-my-way, beside the repository's. */
export function copiedFastify(): OtherFastify {
  const fastifyDir = dirname(require.resolve('fastify/package.json'));
  const routerDir = dirname(createRequire(require.resolve('fastify')).resolve('find-my-way/package.json'));
  // Inside the repository's node_modules, so that the copy finds every other package there.
  const cache = join(dirname(fastifyDir), '.cache');
  mkdirSync(cache, { recursive: true });
  const root = mkdtempSync(join(cache, 'lib-cors-fastify-copy-'));
  const copy = join(root, 'node_modules', 'fastify');
  for (const part of ['package.json', 'fastify.js', 'lib']) cpSync(join(fastifyDir, part), join(copy, part), { recursive: true });
  for (const part of ['package.json', 'index.js', 'lib']) cpSync(join(routerDir, part), join(copy, 'node_modules', 'find-my-way', part), { recursive: true });
  const main = join(copy, 'fastify.js');
  return { Fastify: require(main) as typeof Fastify, main, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** fastify and its dependencies bundled by esbuild into one CommonJS file. */
export function bundledFastify(): OtherFastify {
  const root = mkdtempSync(join(tmpdir(), 'lib-cors-fastify-bundle-'));
  const outfile = join(root, 'fastify.cjs');
  buildSync({ entryPoints: [require.resolve('fastify')], bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'error' });
  return { Fastify: require(outfile) as typeof Fastify, main: outfile, remove: () => rmSync(root, { recursive: true, force: true }) };
}
