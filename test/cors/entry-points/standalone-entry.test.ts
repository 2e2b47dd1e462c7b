/** `@lib/cors/standalone` loads nothing of the dependency-injection host. */
import { execFileSync } from 'node:child_process';

import t from 'tap';

t.test('importing @lib/cors/standalone leaves the Reflect metadata API (loaded by @lib/core) absent', async (t) => {
  const probe = `
    const cors = await import('@lib/cors/standalone');
    const before = typeof Reflect.getMetadata;
    await import('@lib/cors');
    console.log(JSON.stringify({ createCors: typeof cors.createCors, before, after: typeof Reflect.getMetadata }));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
  t.same(JSON.parse(output), { createCors: 'function', before: 'undefined', after: 'function' });
});

t.test('the standalone entry exports the engine and nothing of the module', async (t) => {
  const standalone = await import('@lib/cors/standalone');
  t.same(Object.keys(standalone).sort(), [
    'CONFIG_CHANNEL',
    'CorsEngine',
    'CorsOptions',
    'CorsOptionsError',
    'CorsUsageError',
    'DECISION_CHANNEL',
    'OPTION_ERROR_CODES',
    'ROUTE_ERROR_CODES',
    'RouteRegistrationError',
    'USAGE_ERROR_CODES',
    'createCors',
    'setCorsCookie',
  ]);
  const engine = standalone.createCors();
  t.notOk('respondToOptions' in engine, "the OPTIONS twins' handler is the module's");
  t.equal(engine.route.length, 3, 'route(methods, path, options?): no source argument');
});

t.test('an engine that serves loads explain(), the browser checks, the shared router and cookie only when they are used', async (t) => {
  // A fresh process: this one has loaded them already.
  const probe = `
    const http = require('node:http');
    const { createCors, setCorsCookie } = require('@lib/cors/standalone');
    const loaded = () => Object.keys(require.cache).filter((file) => /diagnostics|shared-router|cookie/.test(file)).map((file) => file.replace(/^.*(diagnostics\\/|core\\/|node_modules\\/cookie\\/)/, '$1'));
    const cors = createCors({ origin: ['https://app.example.com'] }).route('GET', '/users/:id');
    const server = http.createServer((req, res) => cors.handle(req, res, () => res.end('ok')));
    server.listen(0, '127.0.0.1', async () => {
      const url = 'http://127.0.0.1:' + server.address().port + '/users/7';
      await fetch(url, { method: 'OPTIONS', headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET' } });
      await fetch(url, { headers: { Origin: 'https://app.example.com' } });
      const serving = loaded();
      await cors.explain({ method: 'GET', url: '/users/7', headers: { origin: 'https://app.example.com' } });
      const explaining = loaded();
      cors.setDebug(true);
      console.warn = () => {};
      await fetch(url, { headers: { Origin: 'https://elsewhere.example' } });
      const debugging = loaded();
      setCorsCookie({ method: 'GET', url: '/' }, { getHeader() {}, setHeader() {} }, 'session', '1');
      server.close();
      console.log(JSON.stringify({ serving, explaining, debugging, cookie: loaded().some((file) => file.startsWith('node_modules/cookie/')) }));
    });
  `;
  const output = execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
  const { serving, explaining, debugging, cookie } = JSON.parse(output) as { serving: string[]; explaining: string[]; debugging: string[]; cookie: boolean };
  t.same(serving, ['diagnostics/channels.js'], 'serving requests loads the decision channel check only');
  t.ok(explaining.includes('diagnostics/explain.js') && explaining.includes('diagnostics/browser-checks.js'), 'explain() loads them');
  t.ok(debugging.includes('diagnostics/observed-decision.js') && debugging.includes('diagnostics/refusals.js'), 'debug mode loads the refusal lines');
  t.ok(cookie, 'setCorsCookie() loads cookie');
});
