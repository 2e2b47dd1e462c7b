/** Module path prefixes: `{ module, path }` imports, joined down the import chain. */
import t from 'tap';

import { injectable } from '@lib/core';
import { controller, restModule, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../helpers/app.js';

@injectable()
class Counter {
  count = 0;
}

@controller()
class CountController {
  constructor(private readonly counter: Counter) {}
  @route('GET', 'count')
  count() {
    return ++this.counter.count;
  }
}

@restModule({ controllers: [CountController], providersPerMod: [Counter] })
class CountModule {}

@restModule({ imports: [CountModule, { module: CountModule, path: '/deeper/' }] })
class NestingModule {}

t.test('prefixes join down the import chain, slashes normalized', async (t) => {
  @restRootModule({ imports: [{ module: NestingModule, path: 'api//v1' }] })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.same(server.app.routes, [
    { method: 'GET', path: '/api/v1/count' },
    { method: 'GET', path: '/api/v1/deeper/count' },
  ]);
  t.equal((await server.send('GET', '/api/v1/deeper/count')).body, '1');
});

t.test('a module imported plainly twice under one prefix is one node; under another prefix, another node', async (t) => {
  @restModule({ imports: [CountModule], exports: [] })
  class Left {}
  @restModule({ imports: [CountModule] })
  class Right {}
  @restRootModule({
    imports: [Left, Right, { module: CountModule, path: '' }, { module: CountModule, path: 'other' }, { module: CountModule, path: '/other/' }],
  })
  class App {}
  const server = await serveApplication(App);
  t.teardown(server.close);
  t.same(server.app.routes, [
    { method: 'GET', path: '/count' },
    { method: 'GET', path: '/other/count' },
  ]);
  t.equal((await server.send('GET', '/count')).body, '1');
  t.equal((await server.send('GET', '/other/count')).body, '1', 'its own module-level Counter');
  t.equal((await server.send('GET', '/count')).body, '2');
});

t.test('a dynamic import with providers of its own is a node of its own, even at a shared prefix', async (t) => {
  @restRootModule({
    imports: [
      { module: CountModule, path: 'x' },
      { module: CountModule, path: 'x', providersPerMod: [Counter] },
    ],
  })
  class App {}
  await t.rejects(serveApplication(App), {
    message: 'Duplicate route GET /x/count: CountController.count and CountController.count. Give one of them another method or path.',
  });
});
