/**
 * The engines interface, proved in each real engine against a hand-written server: no library
 * code here, only node:http answering with fixed CORS headers, so a failure points at the driver
 * (engines.ts) or at the engine, never at the CORS implementation under test elsewhere.
 *
 * Pages are served on http://127.0.0.1:P1 and the API on http://127.0.0.1:P2: cross-origin but
 * same-site, so credentialed cookies work in all three engines (WebKit keeps cross-site ones out).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import t from 'tap';

import { checkInstalled, ENGINES, INSTALL, launchEngine, majorVersion, MINIMUM_MAJOR, pageHtml, reusesFirstPreflight, type Engine } from './engines.js';

// Three launches plus the checks; generous enough for 2 busy cores (the default file budget is 30 s).
t.setTimeout(300_000);

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

const pages = await listen((req, res) => {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(pageHtml(req.url === '/sandbox' ? 'sandbox' : 'blank'));
});
const page = pages.origin;

interface Seen {
  method: string;
  path: string;
  origin: string | undefined;
  cookie: string | undefined;
}
const seen: Seen[] = [];
/** What reached the API since the last call, as "METHOD path". */
const reached = () => seen.splice(0).map(({ method, path }) => `${method} ${path}`);

const api = await listen((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  seen.push({ method: req.method ?? '', path, origin: req.headers.origin, cookie: req.headers.cookie });
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Exposed', 'yes');
  res.setHeader('X-Hidden', 'yes');
  const key = `${req.method} ${path}`;
  switch (key) {
    case 'GET /plain': // no CORS headers at all
      return res.end('plain');
    case 'GET /cors':
      res.setHeader('Access-Control-Allow-Origin', page);
      return res.end('cors');
    case 'GET /cors-exposed':
      res.setHeader('Access-Control-Allow-Origin', page);
      res.setHeader('Access-Control-Expose-Headers', 'X-Exposed');
      return res.end('cors-exposed');
    case 'GET /reflect': // any origin, 'null' included; the body says which Origin came
      res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
      return res.end(req.headers.origin ?? '(none)');
    case 'POST /login':
      res.setHeader('Access-Control-Allow-Origin', page);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Set-Cookie', 's=1; Path=/; HttpOnly; SameSite=Lax');
      return res.end('logged in');
    case 'POST /login-no-credentials': // ACAO without Access-Control-Allow-Credentials: the CORS check fails
      res.setHeader('Access-Control-Allow-Origin', page);
      res.setHeader('Set-Cookie', 'u=2; Path=/; HttpOnly; SameSite=Lax');
      return res.end('logged in, unreadably');
    case 'GET /deep/set': // a cookie with a Path of its own
      res.setHeader('Access-Control-Allow-Origin', page);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Set-Cookie', 'd=3; Path=/deep');
      return res.end('set');
    case 'GET /me':
      res.setHeader('Access-Control-Allow-Origin', page);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      return res.end(req.headers.cookie ?? '');
    case 'OPTIONS /cached': // preflight of PUT /cached, cacheable for 60 s
    case 'OPTIONS /cached-too':
      res.setHeader('Access-Control-Allow-Origin', page);
      res.setHeader('Access-Control-Allow-Methods', 'PUT');
      res.setHeader('Access-Control-Max-Age', '60');
      res.statusCode = 204;
      return res.end();
    case 'PUT /cached':
    case 'PUT /cached-too':
      res.setHeader('Access-Control-Allow-Origin', page);
      return res.end('put');
    default:
      res.statusCode = 404;
      return res.end('no such route');
  }
});

t.teardown(async () => {
  await api.close();
  await pages.close();
});

t.test('a missing binary is an Error naming the install command, never an install or a skip', async (t) => {
  const missing = { WebKitWebDriver: ['/nonexistent/WebKitWebDriver'], Xvfb: ['/nonexistent/Xvfb'] };
  t.throws(() => checkInstalled('webkit', missing), { message: /missing WebKitWebDriver \(looked for \/nonexistent\/WebKitWebDriver\); Xvfb/ });
  for (const name of ENGINES) {
    t.throws(() => checkInstalled(name, { binary: ['/nonexistent'] }), { message: new RegExp(`Install it with: ${INSTALL[name]} \\(`) }, name);
  }
  t.equal(INSTALL.firefox, 'apt-get install -y --no-install-recommends firefox-esr');
  t.equal(INSTALL.webkit, 'apt-get install -y --no-install-recommends webkit2gtk-driver xvfb');
  t.equal(INSTALL.chromium, 'apt-get install -y --no-install-recommends chromium');
});

for (const name of ENGINES) {
  t.test(name, { timeout: 90_000 }, async (t) => {
    const engine: Engine = await launchEngine(name);
    t.teardown(() => engine.close());
    t.comment(`${engine.version}: launched in ${engine.launchMs} ms`);
    t.equal(engine.name, name);
    t.match(engine.version, { chromium: /^Chromium \d+\./, firefox: /^Firefox \d+\./, webkit: /^WebKitGTK \d+\./ }[name]);
    if (name !== 'webkit') t.ok(majorVersion(engine.version) >= MINIMUM_MAJOR[name], `${engine.version}: at least ${MINIMUM_MAJOR[name]}`);

    const blank = await engine.open(`${page}/`);
    t.teardown(() => blank.close());
    reached();

    t.test('1. a cross-origin GET without Access-Control-Allow-Origin rejects, though the server answered', async (t) => {
      const verdict = await blank.fetch(`${api.origin}/plain`);
      t.match(verdict, { resolved: false, error: /^TypeError: / });
      t.notOk('status' in verdict, 'nothing of the response reaches the page');
      t.comment(`${name} says: ${verdict.error}`);
      t.same(reached(), ['GET /plain']);
    });

    t.test('2. with ACAO: the page origin it resolves; a header is readable only when exposed', async (t) => {
      t.match(await blank.fetch(`${api.origin}/cors`), {
        resolved: true,
        status: 200,
        body: 'cors',
        headers: { 'x-exposed': null, 'x-hidden': null, 'set-cookie': null },
      });
      t.match(await blank.fetch(`${api.origin}/cors-exposed`), { resolved: true, status: 200, headers: { 'x-exposed': 'yes', 'x-hidden': null } });
      t.same(
        await blank.fetch(`${api.origin}/cors-exposed`, {}, ['X-Exposed', 'content-type']),
        {
          resolved: true,
          status: 200,
          body: 'cors-exposed',
          headers: { 'X-Exposed': 'yes', 'content-type': 'text/plain' },
        },
        'read: names of my choice; Content-Type is a safelisted response header',
      );
      t.same(
        seen.splice(0).map((s) => s.origin),
        [page, page, page],
        'each request carried the page origin',
      );
    });

    t.test('3. a sandboxed frame fetches with Origin: null', async (t) => {
      const sandbox = await engine.open(`${page}/sandbox`, { sandboxedFrame: true });
      t.teardown(() => sandbox.close());
      reached();
      t.match(await sandbox.fetchFromSandbox(`${api.origin}/reflect`), { resolved: true, status: 200, body: 'null' });
      t.match(await sandbox.fetchFromSandbox(`${api.origin}/cors`), { resolved: false, error: /^TypeError: / }, 'ACAO names the page, not null');
      t.same(
        seen.splice(0).map((s) => [s.path, s.origin]),
        [
          ['/reflect', 'null'],
          ['/cors', 'null'],
        ],
      );
      t.match(await sandbox.fetch(`${api.origin}/reflect`), { resolved: true, body: page }, 'the page holding the frame keeps its own origin');
      await t.rejects(blank.fetchFromSandbox(`${api.origin}/reflect`), /not opened with \{ sandboxedFrame: true \}/);
      await t.rejects(engine.open(`${page}/`, { sandboxedFrame: true }), /does not hold the sandboxed frame: serve pageHtml\('sandbox'\)/);
      reached();
    });

    t.test('4. a credentialed POST stores an HttpOnly cookie; a credentialed GET sends it back', async (t) => {
      t.same(await engine.cookies(api.origin), [], 'a fresh profile has no cookies');
      t.match(await blank.fetch(`${api.origin}/login`, { method: 'POST', credentials: 'include' }), {
        resolved: true,
        status: 200,
        body: 'logged in',
        headers: { 'set-cookie': null },
      });
      t.same(await engine.cookies(`${api.origin}/`), [{ name: 's', value: '1', httpOnly: true }]);
      t.same(await engine.cookies(`${api.origin}/me`), [{ name: 's', value: '1', httpOnly: true }], 'Path=/ covers /me');
      t.match(await blank.fetch(`${api.origin}/me`, { credentials: 'include' }), { resolved: true, body: 's=1' });
      t.match(await blank.fetch(`${api.origin}/me`), { resolved: true, body: '' }, "credentials 'same-origin' (the default) sends no cookie cross-origin");
      t.match(await blank.fetch(`${api.origin}/me`, { credentials: 'omit' }), { resolved: true, body: '' });
      t.same(
        seen.splice(0).map((s) => s.cookie),
        [undefined, 's=1', undefined, undefined],
        'as the server saw it',
      );

      await engine.clearCookies();
      t.same(await engine.cookies(api.origin), [], 'clearCookies() forgets it');
      t.match(await blank.fetch(`${api.origin}/me`, { credentials: 'include' }), { resolved: true, body: '' });
      reached();
    });

    t.test('5. preflight caching (Max-Age: 60): pinned per engine, so a change is noticed', async (t) => {
      const putTwice = async (path: string) => {
        const verdicts = [
          await blank.fetch(api.origin + path, { method: 'PUT', body: 'x' }),
          await blank.fetch(api.origin + path, { method: 'PUT', body: 'x' }),
        ];
        t.match(
          verdicts,
          [
            { resolved: true, body: 'put' },
            { resolved: true, body: 'put' },
          ],
          path,
        );
        return reached();
      };
      const first = await putTwice('/cached');
      t.comment(`${name}, first preflighted path: ${first.join(', ')}`);
      // Chromium (150, 156), WebKit (2.50) and Firefox up to 140 ESR (140.12.0esr) reuse the first
      // preflight, as Max-Age says. Firefox from 153 ESR (153.7.0esr; fresh profile) does not:
      // each PUT to the first preflighted URL was preflighted again, also after waiting 3 s;
      // caching starts after a few preflights, in a pattern not pinned here (measured: PUT ×3 to
      // /a then /b: /b cached after its first preflight; PUT ×2 each to /a, /b, /c: /c is the first
      // cached; one PUT each to five URLs, twice round: nothing cached). Pinned per version range:
      // FIREFOX_UNRELIABLE_PREFLIGHT_CACHE in engines.ts.
      const expected = reusesFirstPreflight(engine)
        ? ['OPTIONS /cached', 'PUT /cached', 'PUT /cached']
        : ['OPTIONS /cached', 'PUT /cached', 'OPTIONS /cached', 'PUT /cached'];
      t.same(first, expected, `${engine.version}: the first preflighted path`);
      t.comment(`${name}, a second path: ${(await putTwice('/cached-too')).join(', ')}`);
    });

    t.test('6. CORS guards reading, not the side effects: a refused credentialed response still sets its cookie', async (t) => {
      t.match(await blank.fetch(`${api.origin}/login-no-credentials`, { method: 'POST', credentials: 'include' }), { resolved: false, error: /^TypeError: / });
      t.same(await engine.cookies(api.origin), [{ name: 'u', value: '2', httpOnly: true }]);
      t.match(await blank.fetch(`${api.origin}/me`, { credentials: 'include' }), { resolved: true, body: 'u=2' });
      await engine.clearCookies();
      reached();
    });

    t.test('7. cookies(url) honours Path; clearCookies() forgets cookies of every path', async (t) => {
      t.match(await blank.fetch(`${api.origin}/deep/set`, { credentials: 'include' }), { resolved: true, body: 'set' });
      t.same(await engine.cookies(`${api.origin}/deep/x`), [{ name: 'd', value: '3', httpOnly: false }]);
      t.same(await engine.cookies(`${api.origin}/`), [], 'not sent to /');
      await engine.clearCookies();
      t.same(await engine.cookies(`${api.origin}/deep/x`), []);
      t.match(await blank.fetch(`${api.origin}/deep/me`, { credentials: 'include' }), { resolved: false }, 'no such route, no ACAO: rejects');
      t.same(
        seen.splice(0).map((s) => [s.path, s.cookie]),
        [
          ['/deep/set', undefined],
          ['/deep/me', undefined],
        ],
        'and no cookie went with it',
      );
    });

    t.test('8. pages are independent: concurrent fetches from two pages each carry their own origin', async (t) => {
      const other = `http://localhost:${new URL(page).port}`;
      const second = await engine.open(`${other}/`);
      t.teardown(() => second.close());
      const verdicts = await Promise.all([blank, second, blank, second, blank, second].map((from) => from.fetch(`${api.origin}/reflect`)));
      t.same(
        verdicts.map((v) => v.body),
        [page, other, page, other, page, other],
      );
      reached();
    });
  });
}
