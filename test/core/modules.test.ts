import t from 'tap';

import { defineModule, injectable, InjectionToken, ModuleTree, type Class, type DynamicModule, type ModuleMetadata, type ModulePlacement } from '@lib/core';

/** A host's own field on dynamic imports, read only by its placement (as @lib/rest reads `path`). */
interface ZonedModule extends DynamicModule {
  zone?: string;
}
type ZonedImport = Class | ZonedModule;
/** Each node's place: its importer's zones, then its import's own. */
const zones: ModulePlacement<string, ZonedImport> = {
  root: 'root',
  place: (outer, entry) => (typeof entry === 'function' || entry.zone === undefined ? outer : `${outer}.${entry.zone}`),
};

const module = (metadata: ModuleMetadata<ZonedImport> = {}, kind = 'feature') => defineModule<ModuleMetadata<ZonedImport>>(kind, metadata);
const CONFIG = new InjectionToken<string>('CONFIG');
const HIDDEN = new InjectionToken<string>('HIDDEN');
const PER_ROUTE = new InjectionToken<string>('PER_ROUTE');

@injectable()
class Counter {
  count = 0;
}

@module({
  providersPerMod: [Counter, { token: HIDDEN, useValue: 'secret' }],
  providersPerRou: [{ token: PER_ROUTE, useValue: 'from feature' }],
  exports: [Counter, PER_ROUTE],
})
class FeatureModule {}

@module({ imports: [FeatureModule], exports: [FeatureModule] })
class ReexportingModule {}

@module({ providersPerApp: [{ token: CONFIG, useValue: 'app-wide' }] })
class ConfigModule {}

@module(
  { imports: [ReexportingModule, ConfigModule, { module: FeatureModule, zone: 'api', providersPerMod: [{ token: HIDDEN, useValue: 'dynamic' }] }] },
  'root',
)
class AppModule {}

t.test('the graph lists every import, imports before importers, each at the place its host gives it', async (t) => {
  const tree = new ModuleTree(AppModule, zones);
  t.same(
    tree.nodes.map((node) => `${node.name} ${node.place}`),
    ['FeatureModule root', 'ReexportingModule root', 'ConfigModule root', 'FeatureModule root.api', 'AppModule root'],
  );
  t.equal(tree.root.name, 'AppModule');
});

t.test('plain imports of one module share a node at one place, not across places', async (t) => {
  @module({ imports: [FeatureModule, { module: FeatureModule }, { module: FeatureModule, zone: 'a' }, { module: ReexportingModule, zone: 'a' }] }, 'root')
  class Zoned {}
  const tree = new ModuleTree(Zoned, zones);
  t.same(
    tree.nodes.map((node) => `${node.name} ${node.place}`),
    ['FeatureModule root', 'FeatureModule root.a', 'ReexportingModule root.a', 'Zoned root'],
  );
  const [feature, featureInA, reexporting] = tree.nodes;
  t.equal(reexporting!.imports[0], featureInA, "an import inherits its importer's place");
  t.not(tree.moduleInjector(feature!).get(Counter), tree.moduleInjector(featureInA!).get(Counter));
  const onePlace = new ModuleTree(Zoned, { root: undefined, place: () => undefined });
  t.same(
    onePlace.nodes.map((node) => node.name),
    ['FeatureModule', 'ReexportingModule', 'Zoned'],
    'with a single place, a module imported plainly is one node',
  );
});

t.test('the placement is asked only about imports that are modules', async (t) => {
  const asked: unknown[] = [];
  @module({ imports: [undefined as never] })
  class ImportsUndefined {}
  const recording: ModulePlacement<string, ZonedImport> = {
    root: '',
    place: (outer, entry) => {
      asked.push(entry);
      return outer;
    },
  };
  t.throws(() => new ModuleTree(ImportsUndefined, recording), { name: 'StartupError', message: /^ImportsUndefined imports undefined, which is not a module/ });
  t.same(asked, []);
});

t.test('providersPerApp are visible in every module', async (t) => {
  const tree = new ModuleTree(AppModule, zones);
  for (const node of tree.nodes) t.equal(tree.moduleInjector(node).get(CONFIG), 'app-wide', node.name);
});

t.test('exports: exported tokens pass to importers (re-exports too), others stay private', async (t) => {
  const tree = new ModuleTree(AppModule, zones);
  const [feature, reexporting, , dynamic, app] = tree.nodes;
  const appInjector = tree.moduleInjector(app!);
  t.equal(
    tree.moduleInjector(reexporting!).get(Counter),
    tree.moduleInjector(feature!).get(Counter),
    "a module-level export stays the exporting module's single instance",
  );
  t.equal(appInjector.get(Counter), tree.moduleInjector(dynamic!).get(Counter), 'of two imports exporting one token, the later wins');
  t.equal(appInjector.get(HIDDEN, true), undefined, 'not exported, not visible');
  t.equal(tree.moduleInjector(dynamic!).get(HIDDEN), 'dynamic', 'a dynamic import adds providers to its own node');
  t.not(tree.moduleInjector(dynamic!).get(Counter), tree.moduleInjector(feature!).get(Counter), 'two imports of one module are two nodes');
  t.same(tree.providersAt(app!, 'providersPerRou'), [
    { token: PER_ROUTE, useValue: 'from feature' },
    { token: PER_ROUTE, useValue: 'from feature' },
  ]);
  t.same(tree.providersAt(app!, 'providersPerReq'), []);
});

t.test("a re-exported module-level value is the original module's instance", async (t) => {
  @module({ imports: [ReexportingModule] }, 'root')
  class OnlyReexported {}
  const tree = new ModuleTree(OnlyReexported, zones);
  const [feature, , root] = tree.nodes;
  t.equal(tree.moduleInjector(root!).get(Counter), tree.moduleInjector(feature!).get(Counter));
});

t.test('module graph mistakes are start-up errors', async (t) => {
  class SelfImporting {}
  defineModule('feature', { imports: [SelfImporting] })(SelfImporting);
  t.throws(() => new ModuleTree(SelfImporting, zones), { name: 'StartupError', message: 'SelfImporting imports itself: remove it from its own imports.' });

  @module()
  class A {}
  @module({ imports: [A] })
  class B {}
  defineModule('feature', { imports: [B] })(A);
  t.throws(() => new ModuleTree(A, zones), { message: 'Module import cycle: A -> B -> A. Move what both need into a third module.' });

  class NotAModule {}
  @module({ imports: [NotAModule] })
  class Importer {}
  t.throws(() => new ModuleTree(Importer, zones), { message: /^Importer imports NotAModule, which is not a module: decorate the class with restModule/ });
  t.throws(() => new ModuleTree(NotAModule, zones), { message: /^The application root is not a module/ });

  @module({ exports: [CONFIG] })
  class ExportsNothing {}
  t.throws(() => new ModuleTree(ExportsNothing, zones), {
    message:
      'ExportsNothing exports InjectionToken(CONFIG), which it neither provides (providersPerMod, providersPerRou, providersPerReq) nor imports as a module.',
  });
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
  const tree = new ModuleTree(UsesHook, zones);
  const hooks = tree.initHooksFor(tree.root);
  t.equal(hooks.length, 1);
  t.equal(hooks[0]!.from.name, 'HookModule');
  t.equal((hooks[0]!.hook as Hook).counter, tree.moduleInjector(tree.nodes[0]!).get(Counter));
  await hooks[0]!.hook.onInit('ctx');
  t.same(seen, ['ctx']);
  t.same(tree.initHooksFor(tree.nodes[0]!), []);
});
