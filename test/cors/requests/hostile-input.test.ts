/**
 * Requests built to trick a CORS layer: each gets a safe refusal (no grant beyond what the
 * policy states for everyone), the server never crashes, and request headers never reach a
 * response unvalidated.
 */
import { connect } from 'node:net';
import { once } from 'node:events';

import t from 'tap';

import { createCors } from '@lib/cors/standalone';

import { corsHeadersOf, echoApp, serve, type RequestHeaders } from '../../helpers/http.js';

const lookalikes = [
  'https://evilexample.com',
  'https://example.com.evil.net',
  'https://a.example.com.evil.net',
  'https://example.com.',
  'https://EXAMPLE.com',
  'HTTPS://example.com',
  'http://example.com',
  'https://example.com:443',
  'https://example.com/',
  'https://example.com/path',
  'https://user@example.com',
  'https://example.com@evil.net',
  'https://evil.net#.example.com',
  'https://evil.net\\.example.com',
  'https://evil.net%2e.example.com',
  'https://.example.com',
  'https://a..example.com',
  'null',
  'file://',
  'file:///etc/passwd',
  '',
  ' https://example.com',
  '*',
  'https://example.com, https://evil.net',
  `https://${'a'.repeat(600)}.example.com`,
  'https://ex\u00e4mple.com',
];

const policies = {
  'one origin': { origin: 'https://example.com' },
  'one origin, with credentials': { origin: 'https://example.com', allowCredentials: true },
  list: { origin: ['https://example.com', 'https://www.example.com'], allowCredentials: true },
  'wildcard pattern': { origin: ['https://example.com', 'https://*.example.com'] },
  RegExp: { origin: /^https:\/\/(?:[a-z0-9-]+\.)?example\.com$/ },
  reflection: { origin: true },
  'sync function': { origin: (origin: string) => origin === 'https://example.com' || origin.endsWith('.example.com') },
};

for (const [name, options] of Object.entries(policies)) {
  t.test(`${name}: no lookalike origin is ever granted`, async (t) => {
    const cors = createCors(options).route(['GET', 'PUT'], '/data');
    const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
    t.teardown(server.close);
    for (const origin of lookalikes) {
      if (name === 'reflection' && isWellFormed(origin)) continue; // reflection allows every real origin by design
      for (const [method, extra] of [
        ['GET', {}],
        ['OPTIONS', { 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-foo' }],
      ] as const) {
        const answer = await server.send(method, '/data', { Origin: origin, ...extra });
        const granted = answer.headers['access-control-allow-origin'];
        const what = `${method} from ${JSON.stringify(origin).slice(0, 60)}`;
        // The browser's CORS check: the page reads the answer only if it names its origin (or '*').
        t.not(granted, origin, `${what}: the browser's CORS check fails`);
        t.ok(granted === undefined || granted === 'https://example.com', `${what}: no grant but the policy's own origin (got ${granted})`);
        if (granted === undefined) {
          t.notOk('access-control-allow-credentials' in answer.headers);
          t.notOk('access-control-allow-headers' in answer.headers);
          t.notOk('access-control-allow-methods' in answer.headers);
        }
      }
    }
  });
}

t.test('several Origin headers are refused, even when each one alone is allowed', async (t) => {
  const cors = createCors({ origin: ['https://a.test', 'https://b.test'] }).route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const twice: RequestHeaders = { Origin: ['https://a.test', 'https://b.test'] };
  t.same(corsHeadersOf(await server.send('GET', '/', twice)), { vary: 'Origin' });
  t.same(corsHeadersOf(await server.send('OPTIONS', '/', { ...twice, 'Access-Control-Request-Method': 'GET' })), {
    vary: 'Origin, Access-Control-Request-Headers',
  });
});

t.test("'null' is allowed only where it is listed", async (t) => {
  const listed = createCors({ origin: ['null', 'https://a.test'] }).route('GET', '/listed');
  const unlisted = createCors({ origin: /^.*$/ }).route('GET', '/unlisted');
  const server = await serve((req, res) => (req.url === '/listed' ? listed : unlisted).handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  t.equal((await server.send('GET', '/listed', { Origin: 'null' })).headers['access-control-allow-origin'], 'null');
  t.notOk('access-control-allow-origin' in (await server.send('GET', '/unlisted', { Origin: 'null' })).headers);
});

const headerLists: [string, string][] = [
  [
    '100 KB of names',
    Array.from({ length: 10_000 }, (_, i) => `x-h${i}`)
      .join(',')
      .slice(0, 100_000),
  ],
  ['65 names', Array.from({ length: 65 }, (_, i) => `x-${i}`).join(',')],
  ['4097 bytes', `x-${'a'.repeat(4095)}`],
  ['a name with a space', 'x-ok, x bad'],
  ['a non-token byte', 'x-ok,x@evil'],
  ['a quote', 'x-ok,"x"'],
  ['commas only', ',,,'],
  ['bytes outside ASCII', 'x-\u00e9t\u00e9'],
  ['a header-injection attempt', 'x-a\u0000Set-Cookie: a=b'],
];

t.test('an Access-Control-Request-Headers list that is over-long or not all tokens is not reflected', async (t) => {
  const cors = createCors().route('PUT', '/');
  // Node refuses headers over 16 KiB by default; raise that so the engine's own limit is what is tested.
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)), { maxHeaderSize: 1 << 20 });
  t.teardown(server.close);
  for (const [what, list] of headerLists) {
    const answer = await sendRawPreflight(server.origin, list);
    // A NUL byte is refused by Node's parser (400) before the engine sees it.
    t.match(answer, what.includes('injection') ? /^HTTP\/1\.1 400/ : /^HTTP\/1\.1 204/, what);
    t.notMatch(answer, /access-control-allow-headers/i, `${what}: not reflected`);
  }
  const fine = await server.send('OPTIONS', '/', {
    Origin: 'https://a.test',
    'Access-Control-Request-Method': 'PUT',
    'Access-Control-Request-Headers': Array.from({ length: 64 }, (_, i) => `x-${i}`).join(', '),
  });
  t.match(fine.headers['access-control-allow-headers'], /^x-0, x-1, .*x-63$/, '64 names are reflected');
});

t.test('malformed requests never take the server down', async (t) => {
  const cors = createCors({ origin: ['https://a.test'] }).route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  for (const raw of [
    'OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\r\nOrigin: https://a.test\r\nAccess-Control-Request-Method: GET\r\n\r\n',
    'OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\rSet-Cookie: x\r\n\r\n',
    'GET /%zz HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\r\n\r\n',
    'OPTIONS * HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\r\nAccess-Control-Request-Method: GET\r\n\r\n',
    `GET /${'a/'.repeat(5000)} HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\r\n\r\n`,
  ]) {
    const answer = await sendRaw(server.origin, raw);
    t.match(answer, /^HTTP\/1\.1 \d{3}/);
    t.notMatch(answer, /^set-cookie/im);
  }
  t.equal((await server.send('GET', '/', { Origin: 'https://a.test' })).headers['access-control-allow-origin'], 'https://a.test', 'still serving');
});

function isWellFormed(origin: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[a-z0-9._-]+(:\d+)?$/.test(origin) && origin.length <= 512;
}

function sendRawPreflight(origin: string, list: string): Promise<string> {
  return sendRaw(
    origin,
    `OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\r\nAccess-Control-Request-Method: PUT\r\nAccess-Control-Request-Headers: ${list}\r\nConnection: close\r\n\r\n`,
  );
}

/** Writes bytes the http client would refuse to send, and reads whatever comes back. */
async function sendRaw(origin: string, raw: string): Promise<string> {
  const socket = connect(Number(new URL(origin).port), '127.0.0.1');
  await once(socket, 'connect');
  socket.end(Buffer.from(raw, 'latin1'));
  let answer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (answer += chunk));
  await once(socket, 'close');
  return answer;
}
