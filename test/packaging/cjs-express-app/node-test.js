// The same tests on node --test, and what only Node can show: the app loading @lib/cors both ways
// (require() here, import() beside it) gets one copy, so state and error classes are shared, and
// so does every entry point.
const assert = require('node:assert/strict');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { test } = require('node:test');

const { cases } = require('./cases.js');

for (const [name, run] of cases) test(name, run);

/** Every entry point the installed packages publish. */
function entryPoints() {
  return ['core', 'rest', 'cors'].flatMap((name) => {
    const { exports } = JSON.parse(readFileSync(join(__dirname, 'node_modules/@lib', name, 'package.json'), 'utf8'));
    return Object.keys(exports).map((subpath) => `@lib/${name}${subpath.slice(1)}`);
  });
}

test('import and require() give the same objects, every export of every entry point', async () => {
  const entries = entryPoints();
  assert.equal(entries.length, 11);
  for (const entry of entries) {
    const imported = await import(entry);
    const required = require(entry);
    const names = Object.keys(imported).filter((name) => name !== 'default');
    assert.deepEqual(
      names,
      Object.keys(required)
        .filter((name) => name !== 'default')
        .sort(),
      `${entry}: the same names`,
    );
    for (const name of names) assert.equal(imported[name], required[name], `${entry}: ${name} is one object`);
  }
  assert.equal((await import('@lib/cors/fastify')).default, require('@lib/cors/fastify'), 'the fastify plugin');
});

test('every @lib/cors entry point exports the same error classes and constants: one engine in the package', async () => {
  // The tarball bundles each entry point (scripts/pack.js); the modules they share must stay in one file.
  const shared = ['CorsOptions', 'CorsOptionsError', 'CorsUsageError', 'RouteRegistrationError', 'OPTION_ERROR_CODES', 'CONFIG_CHANNEL'];
  const first = require('@lib/cors/standalone');
  for (const entry of entryPoints().filter((name) => name.startsWith('@lib/cors'))) {
    const required = require(entry);
    const imported = await import(entry);
    for (const name of shared) {
      assert.ok(first[name] !== undefined, name);
      assert.equal(required[name], first[name], `${entry}: ${name} from require() is @lib/cors/standalone's`);
      assert.equal(imported[name], first[name], `${entry}: ${name} from import is @lib/cors/standalone's`);
    }
  }
  const badOption = () => require('@lib/cors/fetch').createCors({ origin: '' });
  assert.throws(badOption, require('@lib/cors/express').CorsOptionsError, 'thrown by one entry point, recognised through another');
});

test('an error thrown through import is an instance of the class from require(), and the reverse', async () => {
  const imported = await import('@lib/cors/express');
  const required = require('@lib/cors/express');
  const badOption = (createCors) => () => createCors({ origin: '' });
  const notARouter = (createCors) => () => createCors().mirror({});
  assert.throws(badOption(imported.createCors), required.CorsOptionsError);
  assert.throws(badOption(required.createCors), imported.CorsOptionsError);
  assert.throws(notARouter(imported.createCors), required.RouteRegistrationError);
  assert.throws(notARouter(required.createCors), imported.RouteRegistrationError);
});

test('CorsModule assembled from both forms serves one application', async () => {
  // The host from import, CorsModule and the decorators from require(): one @lib/core between them.
  const { RestApplication } = await import('@lib/rest');
  const { controller, route, restRootModule } = require('@lib/rest');
  const { CorsModule } = require('@lib/cors');
  class Users {
    list() {
      return [{ id: 1 }];
    }
  }
  controller()(Users);
  route('GET', 'users')(Users.prototype, 'list', Object.getOwnPropertyDescriptor(Users.prototype, 'list'));
  class Root {}
  restRootModule({ imports: [CorsModule.withOpts({ origin: 'https://app.example.com' })], controllers: [Users] })(Root);
  const app = await RestApplication.create(Root);
  const { port } = await app.listen(0, '127.0.0.1');
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/users`, { headers: { Origin: 'https://app.example.com' } });
    assert.equal(answer.headers.get('access-control-allow-origin'), 'https://app.example.com');
    assert.deepEqual(await answer.json(), [{ id: 1 }]);
  } finally {
    await app.close();
  }
});
