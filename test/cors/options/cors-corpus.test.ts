/**
 * Real `cors` configurations (test/cors/corpus/cors-configs.ts: 64 option objects from public
 * code, each with where it came from and the origins its app meant to grant), moved over as
 * docs/migration.md says: the options renamed (step 2), an origin function made to return its
 * answer (step 7), everything else as written. Then one of two outcomes, for each:
 * - accepted, and every request the real `cors` 2.8 let the intended origin's page make (a GET,
 *   and a preflighted PUT with a JSON body, with and without credentials), ours lets it make too,
 *   as a browser judges both answers;
 * - or refused, and the fix the message gives, applied as written (with the user's own origins
 *   where it says "list the origins"), leads to such a config, in a few rounds.
 * Both servers are Express 5 apps with the same routes: one with `cors`, one with @lib/cors/express.
 */
import { createRequire } from 'node:module';

import express from 'express';
import t from 'tap';

import { createCors, CorsOptionsError } from '@lib/cors/express';

import { applyFix } from '../../helpers/fixes.js';
import { serve, type TestServer } from '../../helpers/http.js';
import { CORPUS, type OriginCallback, type StaticOrigin } from '../corpus/cors-configs.js';

const quiet = { warn: () => {}, error: () => {} };

/** The real `cors` 2.8 (CommonJS, without typings of its own). */
const cors = createRequire(import.meta.url)('cors') as (options: unknown) => express.RequestHandler;

/** A browser's CORS checks, as cors-check makes them (src/cors/diagnostics/browser-checks.ts, internal). */
interface SeenAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
}
const { corsCheck, preflightCheck } = (await import(new URL('../../../../src/cors/dist/diagnostics/browser-checks.js', import.meta.url).href)) as {
  corsCheck(origin: string, answer: SeenAnswer, credentials: boolean): object | undefined;
  preflightCheck(origin: string, method: string, headerNames: readonly string[], answer: SeenAnswer, credentials: boolean): object | undefined;
};
/** What `intendedOrigins` holds where any site was meant. */
const PATH = '/api/items';

/** Step 2 and step 7 of the guide: the renames, and an origin function that returns its answer. */
function translate(options: Record<string, unknown>): Record<string, unknown> {
  const ours: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    if (name === 'credentials') ours.allowCredentials = value;
    else if (name === 'methods') ours.allowedMethods = value;
    else if (name === 'origin' && typeof value === 'function') ours.origin = returningAnswer(value as (origin: string, callback: OriginCallback) => void);
    else ours[name] = value;
  }
  return ours;
}

/** A `cors` callback-form origin function, as ours: `(origin) => Promise<boolean>`. */
function returningAnswer(fn: (origin: string, callback: OriginCallback) => void) {
  return (origin: string) =>
    new Promise<boolean>((resolve) => {
      try {
        fn(origin, (error, allow) => resolve(error === null && grants(allow, origin)));
      } catch {
        resolve(false);
      }
    });
}

/** What a `cors` origin function's answer grants `origin`: true, the origin itself, a RegExp or list that matches it. */
function grants(allow: StaticOrigin | undefined, origin: string): boolean {
  if (allow === true) return true;
  if (typeof allow === 'string') return allow === origin;
  if (allow instanceof RegExp) return allow.test(origin);
  if (Array.isArray(allow)) return allow.some((entry) => grants(entry, origin));
  return false;
}

function routes(app: express.Express): express.Express {
  for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) app[method](PATH, (_req, res) => void res.send('ok'));
  return app;
}

async function answers(server: TestServer, origin: string): Promise<{ get: SeenAnswer; preflight: SeenAnswer }> {
  const get = await server.send('GET', PATH, { Origin: origin });
  const preflight = await server.send('OPTIONS', PATH, {
    Origin: origin,
    'Access-Control-Request-Method': 'PUT',
    'Access-Control-Request-Headers': 'content-type',
  });
  const seen = (answer: { status: number; headers: Record<string, unknown> }): SeenAnswer => ({
    status: answer.status,
    headers: Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, String(value)])),
  });
  return { get: seen(get), preflight: seen(preflight) };
}

let refused = 0;
for (const entry of CORPUS) {
  const name = `${entry.source.repo} ${entry.source.path}`;
  t.test(name, async (t) => {
    let options = translate(entry.options);
    let app: express.Express | undefined;
    const fixes: string[] = [];
    for (let round = 0; round < 6 && app === undefined; round++) {
      try {
        const candidate = express();
        candidate.use(createCors(options as never, { logger: quiet }));
        app = candidate;
      } catch (error) {
        if (!(error instanceof CorsOptionsError)) throw error;
        // The first problem a round, as a user reading from the top: its fix can settle later
        // ones (leaving allowCredentials out settles every '*' with credentials).
        const [problem] = error.errors;
        fixes.push(`${problem!.code} ${problem!.field}`);
        const fixed = applyFix(options, problem!, entry.intendedOrigins);
        if (fixed === undefined) {
          t.fail(`the fix cannot be applied as written: ${problem!.message}`);
          return;
        }
        options = fixed;
      }
    }
    if (app === undefined) {
      t.fail(`still refused after ${fixes.length} fixes: ${fixes.join(', ')}`);
      return;
    }
    if (fixes.length > 0) refused++;
    const ours = await serve(routes(app) as never);
    t.teardown(ours.close);
    const theirsApp = express();
    theirsApp.use(cors(entry.options));
    const theirs = await serve(routes(theirsApp) as never);
    t.teardown(theirs.close);
    const credentialModes = entry.options.credentials === true ? [false, true] : [false];
    for (const origin of entry.intendedOrigins) {
      const fromCors = await answers(theirs, origin);
      const fromUs = await answers(ours, origin);
      for (const credentials of credentialModes) {
        const mode = `${origin}${credentials ? ', with credentials' : ''}${fixes.length > 0 ? ` (after fixes: ${fixes.join(', ')})` : ''}`;
        if (corsCheck(origin, fromCors.get, credentials) === undefined) {
          t.same(corsCheck(origin, fromUs.get, credentials), undefined, `GET from ${mode}: cors grants it, and so do we`);
        }
        if (preflightCheck(origin, 'PUT', ['content-type'], fromCors.preflight, credentials) === undefined) {
          t.same(
            preflightCheck(origin, 'PUT', ['content-type'], fromUs.preflight, credentials),
            undefined,
            `a preflighted PUT from ${mode}: cors grants it, and so do we`,
          );
        }
      }
    }
  });
}

t.test('the corpus is real and varied', async (t) => {
  t.ok(CORPUS.length >= 50, `${CORPUS.length} configurations`);
  t.ok(refused > 0, `${refused} refused, then fixed as their messages say`);
  t.ok(
    CORPUS.every((entry) => entry.source.repo.includes('/') && /^[0-9a-f]{40}$|^unknown$/.test(entry.source.commit)),
    'each says where it came from',
  );
});
