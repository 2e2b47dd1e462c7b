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
