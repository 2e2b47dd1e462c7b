import t from 'tap';

import { defineModule, injectable, InjectionToken, ModuleTree, type ModuleMetadata } from '@lib/core';

const module = (metadata: ModuleMetadata = {}, kind = 'feature') => defineModule(kind, metadata);
const CONFIG = new InjectionToken<string>('CONFIG');
const HIDDEN = new InjectionToken<string>('HIDDEN');
const PER_ROUTE = new InjectionToken<string>('PER_ROUTE');

@injectable()
class Counter {
  count = 0;
}

@module({ providersPerMod: [Counter, { token: HIDDEN, useValue: 'secret' }], providersPerRou: [{ token: PER_ROUTE, useValue: 'from feature' }], exports: [Counter, PER_ROUTE] })
class FeatureModule {}

@module({ imports: [FeatureModule], exports: [FeatureModule] })
class ReexportingModule {}

@module({ providersPerApp: [{ token: CONFIG, useValue: 'app-wide' }] })
class ConfigModule {}

@module({ imports: [ReexportingModule, ConfigModule, { module: FeatureModule, path: 'api', providersPerMod: [{ token: HIDDEN, useValue: 'dynamic' }] }] }, 'root')
class AppModule {}

t.test('the graph lists every import, imports before importers, with path prefixes', async (t) => {
  const tree = new ModuleTree(AppModule);
  t.same(tree.nodes.map((node) => `${node.name} ${node.path}`), ['FeatureModule /', 'ReexportingModule /', 'ConfigModule /', 'FeatureModule /api', 'AppModule /']);
  t.equal(tree.root.name, 'AppModule');
});

t.test('providersPerApp are visible in every module', async (t) => {
  const tree = new ModuleTree(AppModule);
  for (const node of tree.nodes) t.equal(tree.moduleInjector(node).get(CONFIG), 'app-wide', node.name);
});

t.test('exports: exported tokens pass to importers (re-exports too), others stay private', async (t) => {
  const tree = new ModuleTree(AppModule);
  const [feature, reexporting, , dynamic, app] = tree.nodes;
  const appInjector = tree.moduleInjector(app!);
  t.equal(tree.moduleInjector(reexporting!).get(Counter), tree.moduleInjector(feature!).get(Counter), "a module-level export stays the exporting module's single instance");
  t.equal(appInjector.get(Counter), tree.moduleInjector(dynamic!).get(Counter), 'of two imports exporting one token, the later wins');
  t.equal(appInjector.get(HIDDEN, true), undefined, 'not exported, not visible');
  t.equal(tree.moduleInjector(dynamic!).get(HIDDEN), 'dynamic', 'a dynamic import adds providers to its own node');
  t.not(tree.moduleInjector(dynamic!).get(Counter), tree.moduleInjector(feature!).get(Counter), 'two imports of one module are two nodes');
  t.same(tree.providersAt(app!, 'providersPerRou'), [{ token: PER_ROUTE, useValue: 'from feature' }, { token: PER_ROUTE, useValue: 'from feature' }]);
  t.same(tree.providersAt(app!, 'providersPerReq'), []);
});

t.test('a re-exported module-level value is the original module\'s instance', async (t) => {
  @module({ imports: [ReexportingModule] }, 'root')
  class OnlyReexported {}
  const tree = new ModuleTree(OnlyReexported);
  const [feature, , root] = tree.nodes;
  t.equal(tree.moduleInjector(root!).get(Counter), tree.moduleInjector(feature!).get(Counter));
});

t.test('module graph mistakes are start-up errors', async (t) => {
  class SelfImporting {}
  defineModule('feature', { imports: [SelfImporting] })(SelfImporting);
  t.throws(() => new ModuleTree(SelfImporting), { name: 'StartupError', message: 'SelfImporting imports itself: remove it from its own imports.' });

  @module()
  class A {}
  @module({ imports: [A] })
  class B {}
  defineModule('feature', { imports: [B] })(A);
  t.throws(() => new ModuleTree(A), { message: 'Module import cycle: A -> B -> A. Move what both need into a third module.' });

  class NotAModule {}
  @module({ imports: [NotAModule] })
  class Importer {}
  t.throws(() => new ModuleTree(Importer), { message: /^Importer imports NotAModule, which is not a module: decorate the class with restModule/ });
  t.throws(() => new ModuleTree(NotAModule), { message: /^The application root is not a module/ });

  @module({ exports: [CONFIG] })
  class ExportsNothing {}
  t.throws(() => new ModuleTree(ExportsNothing), { message: 'ExportsNothing exports InjectionToken(CONFIG), which it neither provides (providersPerMod, providersPerRou, providersPerReq) nor imports as a module.' });
});

t.test('init hooks are built by their own module and listed for each importer', async (t) => {
  const seen: string[] = [];
  @injectable()
  class Hook {
    constructor(readonly counter: Counter) {}
    onInit(context: string) {
      seen.push(context);
    }
  }
  @module({ providersPerMod: [Counter], initHooks: [Hook] })
  class HookModule {}
  @module({ imports: [HookModule] })
  class UsesHook {}
  const tree = new ModuleTree(UsesHook);
  const hooks = tree.initHooksFor(tree.root);
  t.equal(hooks.length, 1);
  t.equal(hooks[0]!.from.name, 'HookModule');
  t.equal((hooks[0]!.hook as Hook).counter, tree.moduleInjector(tree.nodes[0]!).get(Counter));
  await hooks[0]!.hook.onInit('ctx');
  t.same(seen, ['ctx']);
  t.same(tree.initHooksFor(tree.nodes[0]!), []);
});
