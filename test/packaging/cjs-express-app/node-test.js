// The same tests on node --test, and what only Node can show: the app loading @lib/cors both ways
// (require() here, import() beside it) gets one copy, so state and error classes are shared.
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
  assert.equal(entries.length, 9);
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
