/**
 * A second copy of fastify, with a find-my-way of its own, as an application's node_modules may
 * hold one (a nested install, a workspace): `@lib/cors/fastify` resolves the first copy's
 * find-my-way, so it cannot reach this fastify's router, and must cover its routes with the
 * engine's own tree instead.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import type Fastify from 'fastify';

const require = createRequire(import.meta.url);

/** The copy's factory, and a function that removes it. */
export function fastifyOfAnotherCopy(): { Fastify: typeof Fastify; remove(): void } {
  const fastifyDir = dirname(require.resolve('fastify/package.json'));
  const routerDir = dirname(createRequire(require.resolve('fastify')).resolve('find-my-way/package.json'));
  // Inside the repository's node_modules, so that both copies find every other package there.
  const cache = join(dirname(fastifyDir), '.cache');
  mkdirSync(cache, { recursive: true });
  const root = mkdtempSync(join(cache, 'lib-cors-fastify-copy-'));
  const copy = join(root, 'node_modules', 'fastify');
  for (const part of ['package.json', 'fastify.js', 'lib']) cpSync(join(fastifyDir, part), join(copy, part), { recursive: true });
  for (const part of ['package.json', 'index.js', 'lib']) cpSync(join(routerDir, part), join(copy, 'node_modules', 'find-my-way', part), { recursive: true });
  return { Fastify: require(join(copy, 'fastify.js')) as typeof Fastify, remove: () => rmSync(root, { recursive: true, force: true }) };
}
