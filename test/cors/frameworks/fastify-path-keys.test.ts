/**
 * Property-based: the fastify plugin files two route paths under one key (one table, and a
 * CORS_ROUTE_CONFLICT when one method is given two policies) only where fastify's router holds
 * them as one route, and never lets a second declaration through that fastify refuses. The oracle
 * is fastify itself, without the plugin: it refuses the second declaration as a duplicate (its
 * own check is wider than one router node: `/:x([a-z]+)` and `/:y(\\d+)` are duplicates to it,
 * and the plugin then leaves the refusal to fastify). Paths are drawn from segments where
 * spellings differ (parameter names, patterns and their case, an escaped colon, doubled and
 * trailing slashes), under each of the router settings that make two spellings one.
 */
import fc from 'fast-check';
import Fastify, { type FastifyServerOptions } from 'fastify';
import t from 'tap';

import fastifyCors from '@lib/cors/fastify';

import { captureLogger } from '../../helpers/http.js';

const SEGMENTS = ['a', 'A', 'b', ':x', ':y', ':x(\\d+)', ':y(\\d+)', ':x([a-z]+)', ':x([A-Z]+)', 'a::b', 'a::c', 'A::B'];

interface Spelled {
  segments: string[];
  doubled: boolean;
  trailing: boolean;
}

const spelled = fc.record({
  segments: fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 3 }),
  doubled: fc.boolean(),
  trailing: fc.boolean(),
});

const written = ({ segments, doubled, trailing }: Spelled): string => `${doubled ? '/' : ''}/${segments.join('/')}${trailing ? '/' : ''}`;

/** The same path spelled otherwise, where it can be: the case of a static part, a parameter's name, the slashes. */
const respelled = (path: Spelled) =>
  fc
    .record({ toggleCase: fc.boolean(), renameParameters: fc.boolean(), doubled: fc.boolean(), trailing: fc.boolean() })
    .map(({ toggleCase, renameParameters, doubled, trailing }) => ({
      segments: path.segments.map((segment) => {
        if (segment.startsWith(':')) return renameParameters ? segment.replace(/^:x/, ':z').replace(/^:y/, ':x') : segment;
        return toggleCase ? (segment === segment.toLowerCase() ? segment.toUpperCase() : segment.toLowerCase()) : segment;
      }),
      doubled,
      trailing,
    }));

/** Two paths: unrelated, or the second a respelling of the first (where keys matter most). */
const pathPair = spelled.chain((first) => fc.oneof(spelled, respelled(first)).map((second) => [written(first), written(second)] as const));

const matching = fc.record({ caseSensitive: fc.boolean(), ignoreTrailingSlash: fc.boolean(), ignoreDuplicateSlashes: fc.boolean() });

/** The error code of declaring GET `second` after GET `first` (each with its own policy), or 'none'. */
async function secondDeclaration(first: string, second: string, routerOptions: FastifyServerOptions['routerOptions'], withPlugin: boolean): Promise<string> {
  const app = Fastify({ routerOptions });
  try {
    if (withPlugin) await app.register(fastifyCors, { logger: captureLogger().logger, origin: 'https://base.test' });
    app.get(first, { config: { cors: { origin: 'https://first.test' } } }, async () => 'first');
    try {
      app.get(second, { config: { cors: { origin: 'https://second.test' } } }, async () => 'second');
      await app.ready();
    } catch (error) {
      return String((error as { code?: string }).code ?? (error as Error).message);
    }
    return 'none';
  } finally {
    await app.close();
  }
}

t.test("two paths are one key only where fastify's router holds them as one route", async (t) => {
  await fc.assert(
    fc.asyncProperty(pathPair, matching, async ([first, second], routerOptions) => {
      const plain = await secondDeclaration(first, second, routerOptions, false);
      // A path fastify refuses for another reason says nothing about keys.
      fc.pre(plain === 'none' || plain === 'FST_ERR_DUPLICATED_ROUTE');
      const covered = await secondDeclaration(first, second, routerOptions, true);
      const name = `${first} then ${second} under ${JSON.stringify(routerOptions)}`;
      if (plain === 'none') t.equal(covered, 'none', `${name}: two routes to fastify, two keys`);
      else t.ok(covered === 'CORS_ROUTE_CONFLICT' || covered === 'FST_ERR_DUPLICATED_ROUTE', `${name}: refused (${covered})`);
    }),
    { numRuns: 300 },
  );
});
