/**
 * Debug mode, switched at runtime (`setDebug(on)`, issue 25 point 4), read where a developer reads
 * it: the browser's console. On a path whose methods have their own policies (docs/CONTRACT.md,
 * rule E), a preflight refused by the policy of the method it asks for gets no
 * Access-Control-Allow-Origin, so all the console says is that the header is missing. With debug
 * on, an origin that some policy of the path allows gets Access-Control-Allow-Origin (and
 * Access-Control-Allow-Credentials where that policy grants them) on the refused preflight, so the
 * console names the check that did fail; an origin no policy of the path allows gets what it got
 * before, and a refusal by the header list reads the same either way.
 *
 * One standalone server runs throughout; the test switches it with setDebug() between phases
 * (off, on, off again), so the switch is proven at runtime, both ways. Every fetch has a URL of
 * its own (`?run=N`): no phase can reuse a preflight answer an earlier one cached. Nothing waits
 * for time to pass: each check waits for the fetch's verdict, then for the console message about
 * its URL (engines.ts, ConsoleLog.waitFor).
 *
 * Chromium and Firefox only: WebDriver classic (our WebKit driver) cannot read a page's console.
 * How each engine's CORS errors reach the test: see ConsoleEntry in engines.ts (Chromium: console
 * messages of type 'error'; Firefox: WebDriver BiDi 'javascript' log entries, puppeteer's
 * 'pageerror'). The texts differ per engine; the patterns below match only the part that names
 * the check (measured on Chromium 156 and Firefox 153.7 ESR).
 *
 * Pages: `http://localhost:P1` (the app), `http://127.0.0.1:P1` (the admin) and
 * `http://127.0.0.1:P2` (a stranger no policy names); the API is on `http://127.0.0.1:P3`.
 */
import { once } from 'node:events';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createCors } from '@lib/cors';
import t, { type Test } from 'tap';

import { launchEngine, pageHtml, type Engine, type EnginePage, type FetchInit, type Verdict } from './engines.js';
import { listen } from './servers.js';

// One page server on two ports: the stranger's origin differs from the others by its port.
const pageServers = [0, 1].map(() =>
  createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(pageHtml('blank'));
  }),
);
for (const server of pageServers) {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
}
const [pagePort, strangerPort] = pageServers.map((server) => (server.address() as AddressInfo).port);
const ORIGINS = {
  app: `http://localhost:${pagePort}`,
  admin: `http://127.0.0.1:${pagePort}`,
  stranger: `http://127.0.0.1:${strangerPort}`,
} as const;
type PageName = keyof typeof ORIGINS;

const quiet = { warn: () => {}, error: () => {} };
// The example: reads from the app, deletes from the admin, with credentials. Each list
// names a second origin no page has, so the policies are of the dynamic kind (docs/CONTRACT.md,
// section 2: a refused origin gets no Access-Control-Allow-Origin). /account is /items with
// credentials granted to the app's reads too.
const READER = 'https://reader.test';
const OPS = 'https://ops.test';
const cors = createCors({}, { debug: false, logger: quiet })
  .route('GET', '/items', { origin: [ORIGINS.app, READER], allowedHeaders: ['X-A'] })
  .route('DELETE', '/items', { origin: [ORIGINS.admin, OPS], allowCredentials: true })
  .route('GET', '/account', { origin: [ORIGINS.app, READER], allowCredentials: true })
  .route('DELETE', '/account', { origin: [ORIGINS.admin, OPS], allowCredentials: true });
const api = await listen(
  createServer((req, res) =>
    cors.handle(req, res, () => {
      res.setHeader('Content-Type', 'text/plain');
      res.end('ok');
    }),
  ),
);
t.teardown(api.close);
// Two engines, each launched once; Firefox takes seconds to start on a busy machine.
t.setTimeout(300_000);

/**
 * The check a CORS console message names: `origin`, no Access-Control-Allow-Origin; `method`,
 * `header`, `credentials`: the origin passed, that did not.
 */
type Check = 'origin' | 'method' | 'header' | 'credentials';

/**
 * What each engine writes for each failed check, for the requests below (the refused method is
 * DELETE, the refused header X-B). Chromium names the method; Firefox does not. Quotes vary
 * (Firefox writes ‘…’), so they are matched by any character.
 */
const CHECKS: Readonly<Record<'chromium' | 'firefox', Readonly<Record<Check, RegExp>>>> = {
  chromium: {
    origin: /No .Access-Control-Allow-Origin. header is present/,
    method: /Method DELETE is not allowed by Access-Control-Allow-Methods/,
    header: /Request header field x-b is not allowed by Access-Control-Allow-Headers/i,
    credentials: /.Access-Control-Allow-Credentials. header .* must be .true./,
  },
  firefox: {
    origin: /CORS header .Access-Control-Allow-Origin. missing/,
    method: /Did not find method in CORS header .Access-Control-Allow-Methods./,
    header: /header .x-b. is not allowed according to header .Access-Control-Allow-Headers./i,
    credentials: /expected .true. in CORS header .Access-Control-Allow-Credentials./,
  },
};

/** A CORS refusal in either engine's words. */
const CORS_BLOCKED = /blocked by CORS policy|Cross-Origin Request Blocked/;
/** Firefox's second message for every refused request, naming no check. */
const NO_CHECK = /Reason: CORS request did not succeed/;

interface Case {
  name: string;
  page: PageName;
  path: string;
  init: FetchInit;
  /** The check the console names with debug off, and with debug on. */
  off: Check;
  on: Check;
  /** The policy that allows the page's origin grants credentials (so the debug answer says so). */
  credentials?: boolean;
}

const CASES: readonly Case[] = [
  {
    name: "(a) DELETE from the app, refused by DELETE's policy",
    page: 'app',
    path: '/items',
    init: { method: 'DELETE' },
    off: 'origin',
    on: 'method',
  },
  {
    name: "(a) with credentials, where the app's policy (GET) grants them",
    page: 'app',
    path: '/account',
    init: { method: 'DELETE', credentials: 'include' },
    off: 'origin',
    on: 'method',
    credentials: true,
  },
  {
    // Debug grants nothing the app's own policy does not: no credentials, so the browser stops at them.
    name: "(a) with credentials, where the app's policy (GET) grants none",
    page: 'app',
    path: '/items',
    init: { method: 'DELETE', credentials: 'include' },
    off: 'origin',
    on: 'credentials',
  },
  {
    name: "(b) a header not in the app's allowedHeaders",
    page: 'app',
    path: '/items',
    init: { headers: { 'X-B': '1' } },
    off: 'header',
    on: 'header',
  },
  {
    name: '(c) DELETE from an origin no policy of the path allows',
    page: 'stranger',
    path: '/items',
    init: { method: 'DELETE' },
    off: 'origin',
    on: 'origin',
  },
];

let run = 0;
/** A URL no earlier fetch used, so no cached preflight answer applies. */
const freshUrl = (path: string) => `${api.url}${path}?run=${++run}`;

/** The same preflight the browser sends, from Node: the answer's headers. */
async function preflight(url: string, origin: string, init: FetchInit): Promise<IncomingHttpHeaders> {
  const headers: Record<string, string> = { Origin: origin, 'Access-Control-Request-Method': init.method ?? 'GET' };
  const names = Object.keys(init.headers ?? {}).map((name) => name.toLowerCase());
  if (names.length > 0) headers['Access-Control-Request-Headers'] = names.sort().join(',');
  const req = request(url, { method: 'OPTIONS', headers });
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  res.resume();
  await once(res, 'end');
  return res.headers;
}

const accessControl = (headers: IncomingHttpHeaders) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

for (const name of ['chromium', 'firefox'] as const) {
  t.test(name, { timeout: 240_000 }, async (t) => {
    const engine = await launchEngine(name);
    t.teardown(() => engine.close());
    t.comment(`${engine.version} (launched in ${engine.launchMs} ms)`);
    const pages = {} as Record<PageName, EnginePage>;
    for (const page of Object.keys(ORIGINS) as PageName[]) {
      pages[page] = await engine.open(`${ORIGINS[page]}/`, { console: true });
    }
    t.teardown(async () => {
      for (const page of Object.values(pages)) await page.close();
    });
    for (const [phase, debug] of [
      ['debug off', false],
      ['debug on', true],
      ['debug off again', false],
    ] as const) {
      t.test(phase, async (t) => {
        cors.setDebug(debug);
        await phaseChecks(t, engine, pages, debug);
      });
    }
  });
}

async function phaseChecks(t: Test, engine: Engine, pages: Record<PageName, EnginePage>, debug: boolean): Promise<void> {
  const checks = CHECKS[engine.name as 'chromium' | 'firefox'];

  t.test('granted requests still pass', async (t) => {
    t.match(
      await pages.admin.fetch(freshUrl('/items'), { method: 'DELETE', credentials: 'include' }),
      { resolved: true, status: 200 },
      "DELETE from the admin, DELETE's policy",
    );
    t.match(await pages.app.fetch(freshUrl('/items'), { headers: { 'X-A': '1' } }), { resolved: true, status: 200 }, "GET with X-A from the app, GET's policy");
  });

  for (const c of CASES) {
    t.test(c.name, async (t) => {
      const expected = debug ? c.on : c.off;
      const url = freshUrl(c.path);
      const page = pages[c.page];
      api.seen.splice(0);
      const verdict: Verdict = await page.fetch(url, c.init);
      t.match(verdict, { resolved: false, error: /^TypeError/ }, 'the browser refuses');
      t.same(
        api.seen.splice(0).map((seen) => [seen.method, seen.path, seen.origin]),
        [['OPTIONS', url.slice(api.url.length), ORIGINS[c.page]]],
        'only the preflight reached the server: the browser decided on its answer',
      );

      // The message that names why, for this URL (Firefox's "did not succeed" follows it, naming nothing).
      const entry = await page.console!.waitFor((e) => e.text.includes(url) && CORS_BLOCKED.test(e.text) && !NO_CHECK.test(e.text));
      t.comment(`${engine.version}, ${debug ? 'debug on' : 'debug off'}: [${entry.level}] ${entry.text}`);
      const named = (Object.keys(checks) as Check[]).filter((check) => checks[check].test(entry.text));
      t.same(named, [expected], `the console names the ${expected} check: ${entry.text}`);

      // What the engine answers that preflight, asked again from Node (the same headers).
      const answer = await preflight(url, ORIGINS[c.page], c.init);
      if (expected === 'origin') {
        t.same(accessControl(answer), [], 'no Access-Control-* header at all');
      } else {
        t.equal(answer['access-control-allow-origin'], ORIGINS[c.page], 'Access-Control-Allow-Origin: the page origin');
        t.equal(
          answer['access-control-allow-credentials'],
          c.credentials ? 'true' : undefined,
          "Access-Control-Allow-Credentials: as the page origin's own policy grants",
        );
      }
    });
  }
}
