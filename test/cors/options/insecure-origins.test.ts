/**
 * Policies that would expose users, refused at start-up by every entry point (issue 49, points 5
 * and 6; jub0bs/cors refuses both, which is where its ported tests found them):
 * - allowPrivateNetwork for every origin ('*', or true): any public site could reach the private
 *   server through its visitors' browsers;
 * - a plain http:// origin with allowCredentials or allowPrivateNetwork: whoever is on that page's
 *   network path can inject script into it and use the grant. Loopback origins are exempt (dev
 *   servers), and `dangerouslyAllowInsecureOrigins: true` accepts the rest where a page truly is
 *   plain http. Each fix, applied as written, is accepted.
 */
import { Hono } from 'hono';
import Fastify from 'fastify';
import t from 'tap';

import { CorsModule, CorsOptionsError } from '@lib/cors';
import { createCors as createExpressCors } from '@lib/cors/express';
import fastifyCors from '@lib/cors/fastify';
import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors as createHonoCors } from '@lib/cors/hono';
import { createCors as createKoaCors } from '@lib/cors/koa';
import { createCors } from '@lib/cors/standalone';
import { controller, RestApplication, restRootModule, route } from '@lib/rest';

const quiet = { warn: () => {}, error: () => {} };

/** Builds the entry point with `options`; throws what it throws at start-up. */
const ENTRY_POINTS: Record<string, (options: object) => unknown> = {
  standalone: (options) => createCors(options, { logger: quiet }),
  'the fetch adapter': (options) => createFetchCors(options, { logger: quiet }),
  Express: (options) => createExpressCors(options, { logger: quiet }),
  Koa: (options) => createKoaCors(options, { logger: quiet }),
  hono: (options) => createHonoCors(new Hono(), options, { logger: quiet }),
  fastify: async (options) => {
    const app = Fastify();
    try {
      await app.register(fastifyCors, { ...options, logger: quiet });
      await app.ready();
    } finally {
      await app.close();
    }
  },
  CorsModule: async (options) => {
    @controller()
    class Items {
      @route('GET', 'items')
      list() {
        return [];
      }
    }
    @restRootModule({ imports: [CorsModule.withOpts(options)], controllers: [Items], providersPerApp: [] })
    class App {}
    await RestApplication.create(App);
  },
};

async function problemsOf(start: (options: object) => unknown, options: object): Promise<CorsOptionsError | undefined> {
  try {
    await start(options);
    return undefined;
  } catch (error) {
    if (error instanceof CorsOptionsError) return error;
    throw error;
  }
}

const REFUSED: [string, object, string, string][] = [
  ['private network for every origin', { allowPrivateNetwork: true }, 'CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN', 'origin'],
  ["private network for '*'", { origin: '*', allowPrivateNetwork: true }, 'CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN', 'origin'],
  ['private network for every origin reflected', { origin: true, allowPrivateNetwork: true }, 'CORS_PRIVATE_NETWORK_TO_EVERY_ORIGIN', 'origin'],
  ['credentials for a plain http origin', { origin: 'http://app.example', allowCredentials: true }, 'CORS_INSECURE_ORIGIN', 'origin'],
  [
    'credentials for a plain http origin in a list',
    { origin: ['https://app.example', 'http://partner.example:8080'], allowCredentials: true },
    'CORS_INSECURE_ORIGIN',
    'origin[1]',
  ],
  ['credentials for a plain http pattern', { origin: 'http://*.app.example', allowCredentials: true }, 'CORS_INSECURE_ORIGIN', 'origin'],
  ['private network for a plain http origin', { origin: ['http://printer.example'], allowPrivateNetwork: true }, 'CORS_INSECURE_ORIGIN', 'origin[0]'],
];

const ACCEPTED: [string, object][] = [
  ['credentials for https origins', { origin: ['https://app.example'], allowCredentials: true }],
  [
    'credentials for loopback http origins',
    { origin: ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'http://app.localhost'], allowCredentials: true },
  ],
  ['plain http origins without credentials or private network', { origin: ['http://app.example'] }],
  ['private network for a listed https origin', { origin: ['https://app.example'], allowPrivateNetwork: true }],
  ['the explicit opt-in', { origin: ['http://app.example'], allowCredentials: true, allowPrivateNetwork: true, dangerouslyAllowInsecureOrigins: true }],
];

for (const [entry, start] of Object.entries(ENTRY_POINTS)) {
  t.test(`${entry}: refused at start-up, with a fix that is accepted when applied`, async (t) => {
    for (const [what, options, code, field] of REFUSED) {
      const error = await problemsOf(start, options);
      t.equal(error?.code, code, `${what}: ${code}`);
      t.equal(error?.field, field, `${what}: names ${field}`);
      if (error === undefined) continue;
      // The fix's first literal, put where it says; then the opt-in it offers for plain http.
      const literal = /(\[[^\]]*\]|'[^']*')/.exec(error.errors[0]!.fix)?.[1];
      t.ok(literal, `${what}: the fix writes the value to use`);
      const value = JSON.parse(literal!.replaceAll("'", '"')) as unknown;
      const fixed: Record<string, unknown> = { ...options };
      const index = /^origin\[(\d+)\]$/.exec(field);
      if (index !== null) fixed.origin = (fixed.origin as unknown[]).map((entry, at) => (at === Number(index[1]) ? value : entry));
      else fixed.origin = value;
      t.equal(await problemsOf(start, fixed), undefined, `${what}: ${JSON.stringify(fixed.origin)} is accepted`);
      if (code === 'CORS_INSECURE_ORIGIN') {
        t.match(error.errors[0]!.fix, /add dangerouslyAllowInsecureOrigins: true/);
        t.equal(await problemsOf(start, { ...options, dangerouslyAllowInsecureOrigins: true }), undefined, `${what}: the opt-in is accepted`);
      }
    }
    for (const [what, options] of ACCEPTED) t.equal(await problemsOf(start, options), undefined, `${what}: accepted`);
  });
}

t.test('the opt-in is read back where it is set, and only there', async (t) => {
  const tolerated = createCors({ origin: 'http://app.example', allowCredentials: true, dangerouslyAllowInsecureOrigins: true });
  t.equal(tolerated.options().dangerouslyAllowInsecureOrigins, true);
  t.notOk('dangerouslyAllowInsecureOrigins' in createCors({ origin: 'https://app.example' }).options());
  t.throws(() => createCors({ dangerouslyAllowInsecureOrigins: 'yes' } as never), { code: 'CORS_INVALID_BOOLEAN' });
});
