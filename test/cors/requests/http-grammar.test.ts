/**
 * The request grammar, seen through the public middleware: a reflecting policy grants exactly
 * the well-formed origins, and reflects exactly the valid header lists.
 */
import t from 'tap';

import { createCors } from '@lib/cors/standalone';

import { echoApp, serve } from '../../helpers/http.js';

const cors = createCors({ origin: true }).route('PUT', '/');
const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
t.teardown(server.close);

t.test('an origin is reflected only when it is serialized the way browsers send it', async (t) => {
  for (const origin of [
    'https://a.test',
    'http://127.0.0.1:3000',
    'http://[::1]:8080',
    'chrome-extension://abcdef',
    'https://xn--bcher-kva.example',
    'https://a_b.example.com',
    'https://a.test.',
  ]) {
    t.equal((await server.send('GET', '/', { Origin: origin })).headers['access-control-allow-origin'], origin, origin);
  }
  for (const bad of [
    'null',
    '',
    'https://',
    'https://A.test',
    'https://a.test/',
    'https://a.test:99999x',
    'https://a.test, https://b.test',
    'a.test',
    `https://${'a'.repeat(600)}.test`,
  ]) {
    t.notOk('access-control-allow-origin' in (await server.send('GET', '/', { Origin: bad })).headers, JSON.stringify(bad).slice(0, 40));
  }
});

t.test('Access-Control-Request-Headers is reflected only as up to 64 tokens in 4 KiB', async (t) => {
  const reflected = async (list: string) =>
    (await server.send('OPTIONS', '/', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': list })).headers[
      'access-control-allow-headers'
    ];
  for (const list of ['x-a', 'content-type,x-a', 'x-a , x-b\t,\tx-c', "!#$%&'*+-.^_`|~09az", Array(64).fill('x').join(',')]) {
    t.equal(await reflected(list), list.trim(), JSON.stringify(list).slice(0, 40));
  }
  // Empty elements are left out (RFC 9110 5.6.1), the names reflected.
  for (const [list, names] of [
    ['x-a,', 'x-a'],
    [',x-a', 'x-a'],
    ['x-a,,x-b', 'x-a,x-b'],
  ]) {
    t.equal(await reflected(list!), names, JSON.stringify(list));
  }
  for (const bad of ['', ',', 'x a', 'x-a;x-b', 'x-a:b', '"x"', Array(65).fill('x').join(','), 'x'.repeat(4097)]) {
    t.equal(await reflected(bad), undefined, JSON.stringify(bad).slice(0, 40));
  }
});

// Found by the property test: the URL parser rewrites these, so no browser sends them as they are.
t.test('regression: a default port written out, or an IPv4 shorthand, is not reflected', async (t) => {
  for (const origin of ['https://a.test:443', 'http://a.test:80', 'wss://a.test:443', 'http://0', 'http://127.1', 'https://-:443']) {
    t.notOk('access-control-allow-origin' in (await server.send('GET', '/', { Origin: origin })).headers, origin);
  }
  t.equal((await server.send('GET', '/', { Origin: 'https://a.test:8443' })).headers['access-control-allow-origin'], 'https://a.test:8443');
});
