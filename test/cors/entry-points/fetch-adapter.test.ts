/**
 * @lib/cors/fetch through the contract: for every policy kind and every row of docs/CONTRACT.md,
 * the adapter's Response (status, CORS headers, body) is the node middleware's answer, over
 * Request/Response in-process against real sockets for the node side. Then what only the adapter
 * has: immutable Responses are copied, Vary is merged, preflightContinue hands on.
 */
import t from 'tap';

import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors } from '@lib/cors/standalone';

import { corsHeadersOf, echoApp, serve, type Answer } from '../../helpers/http.js';
import { POLICY_CASES, requestOfRow } from '../../helpers/policy-kinds.js';

const quiet = { warn: () => {}, error: () => {} };

/** The same stand-in application as echoApp, as a fetch handler. */
function fetchApp(request: Request): Response {
  const url = new URL(request.url);
  return new Response(`app saw ${request.method} ${url.pathname}${url.search}`, { headers: { 'X-Total': '42', 'Content-Type': 'text/plain' } });
}

async function viaFetch(handle: (request: Request) => Promise<Response>, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const response = await handle(new Request(`http://127.0.0.1${path}`, { method, headers }));
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

for (const policy of [
  ...POLICY_CASES,
  {
    name: 'status 200, preflightContinue off, private network',
    options: { origin: ['https://a.test', 'https://b.test'], optionsSuccessStatus: 200, allowPrivateNetwork: true },
    allowed: 'https://a.test',
    denied: 'https://c.test',
  },
]) {
  t.test(`${policy.name}: the fetch adapter answers as the node middleware does`, async (t) => {
    const node = createCors(policy.options, { logger: quiet }).route(['GET', 'POST'], '/users/:id');
    const server = await serve((req, res) => node.handle(req, res, () => echoApp(req, res)));
    t.teardown(server.close);
    const adapter = createFetchCors(policy.options, { logger: quiet }).route(['GET', 'POST'], '/users/:id');
    const handle = (request: Request) => adapter.handle(request, fetchApp);
    for (const row of [1, 2, 3, 4, 5] as const) {
      for (const origin of [undefined, policy.allowed, policy.denied]) {
        if (origin === undefined && (row === 2 || row === 3 || row === 4)) continue;
        const { method, headers } = requestOfRow(row, origin);
        if (row === 4) headers['Access-Control-Request-Private-Network'] = 'true';
        for (const path of ['/users/7?x=1', '/elsewhere']) {
          const expected = await server.send(method, path, headers);
          const actual = await viaFetch(handle, method, path, headers);
          t.same(
            { status: actual.status, cors: corsHeadersOf(actual), body: actual.body },
            { status: expected.status, cors: corsHeadersOf(expected), body: expected.body },
            `row ${row}, ${path}, Origin ${origin ?? '(none)'}`,
          );
        }
      }
    }
  });
}

t.test('an immutable Response (Response.redirect, a fetch() result) is copied, not mutated', async (t) => {
  const adapter = createFetchCors({ origin: ['https://a.test', 'https://b.test'], exposedHeaders: ['X-Total'] }).route('GET', '/go');
  const redirect = Response.redirect('https://example.com/elsewhere', 302);
  const answer = await adapter.handle(new Request('http://127.0.0.1/go', { headers: { Origin: 'https://a.test' } }), () => redirect);
  t.not(answer, redirect, 'a copy');
  t.equal(answer.status, 302);
  t.equal(answer.headers.get('location'), 'https://example.com/elsewhere');
  t.equal(answer.headers.get('access-control-allow-origin'), 'https://a.test');
  t.equal(answer.headers.get('access-control-expose-headers'), 'X-Total');
  t.equal(redirect.headers.get('access-control-allow-origin'), null, 'the original untouched');

  const upstream = await serve((_req, res) => res.end('upstream'));
  t.teardown(upstream.close);
  const proxied = await adapter.handle(new Request('http://127.0.0.1/go', { headers: { Origin: 'https://b.test' } }), () => fetch(`${upstream.origin}/`));
  t.equal(proxied.headers.get('access-control-allow-origin'), 'https://b.test');
  t.equal(await proxied.text(), 'upstream', 'the body streams through');
});

t.test("the application's Vary is merged, not replaced; a mutable Response is written in place", async (t) => {
  const adapter = createFetchCors({ origin: ['https://a.test', 'https://b.test'] }).route('GET', '/v');
  const own = new Response('x', { headers: { Vary: 'Accept-Encoding' } });
  const answer = await adapter.handle(new Request('http://127.0.0.1/v', { headers: { Origin: 'https://a.test' } }), () => own);
  t.equal(answer, own);
  t.equal(answer.headers.get('vary'), 'Accept-Encoding, Origin');
});

t.test('preflightContinue hands the preflight on, with the grant on the application answer', async (t) => {
  const adapter = createFetchCors({ origin: ['https://a.test', 'https://b.test'], preflightContinue: true }).route('PUT', '/p');
  let reached = 0;
  const answer = await adapter.handle(
    new Request('http://127.0.0.1/p', { method: 'OPTIONS', headers: { Origin: 'https://a.test', 'Access-Control-Request-Method': 'PUT' } }),
    () => {
      reached++;
      return new Response(null, { status: 204 });
    },
  );
  t.equal(reached, 1);
  t.equal(answer.headers.get('access-control-allow-origin'), 'https://a.test');
  t.equal(answer.headers.get('access-control-allow-methods'), 'PUT, OPTIONS');
});

t.test('the fetch entry imports nothing from node: itself', async (t) => {
  const { readFile } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  const seen = new Set<string>();
  const pending = [fileURLToPath(import.meta.resolve('@lib/cors/fetch'))];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    // The import wrapper (esm/fetch.mjs) and the CommonJS implementation under it.
    t.notMatch(source, /(from |require\()['"]node:/, `${file.split('/dist/')[1]}: no node: import`);
    for (const [, , relative] of source.matchAll(/(from |require\()['"](\.\.?\/[^'"]+)['"]/g)) pending.push(new URL(relative!, `file://${file}`).pathname);
  }
  t.ok(seen.size > 5, `${seen.size} modules of the engine read`);
});
