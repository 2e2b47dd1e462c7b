/** Modules: their metadata, the tree of imports, and the injectors per level (app, module, route, request). */
import 'reflect-metadata';

import { StartupError } from './errors.js';
import { Injector, InjectorBlueprint } from './injector.js';
import { providerToken, type Provider, type ProviderList } from './providers.js';
import { tokenName, type Class, type Token } from './tokens.js';

/** Providers by level: application (one for all), module, route, request. */
export interface LeveledProviders {
  providersPerApp?: ProviderList;
  providersPerMod?: ProviderList;
  providersPerRou?: ProviderList;
  providersPerReq?: ProviderList;
}

/**
 * A hook a module declares: it runs once for each module that imports it, after that module's
 * routes are collected and before the server starts. Its context is the host's to define.
 */
export interface InitHook<Context = unknown> {
  onInit(context: Context): void | Promise<void>;
}

/** What a module declares; `Import` is what its imports may be (a host may add fields to DynamicModule). */
export interface ModuleMetadata<Import extends ModuleImport = ModuleImport> extends LeveledProviders {
  imports?: readonly Import[];
  /** Tokens (provided by this module at any level) and imported modules whose exports pass on. */
  exports?: readonly Token[];
  /** Classes implementing InitHook, built by this module's injector. */
  initHooks?: readonly Class<InitHook>[];
}

/**
 * An import with extra providers, e.g. from a static `withOpts(...)`. A host may extend it with
 * fields of its own, which its ModulePlacement reads (@lib/rest: a path prefix).
 */
export interface DynamicModule extends Omit<LeveledProviders, 'providersPerApp'> {
  module: Class;
  exports?: readonly Token[];
}

export type ModuleImport = Class | DynamicModule;

/**
 * Where a host puts each node of the module graph (@lib/rest: the path prefix of its routes).
 * The core never looks inside a place: it asks for the place of each import once the import is
 * known to be a module, and shares one node between plain imports of one module only at the
 * same place (compared as Map keys are).
 */
export interface ModulePlacement<Place, Import extends ModuleImport = ModuleImport> {
  /** The root module's place. */
  readonly root: Place;
  /** The place of `entry`, imported by a module placed at `importer`. */
  place(importer: Place, entry: Import): Place;
}

const MODULE = Symbol('module');

export interface ModuleDefinition<Extra, Import extends ModuleImport = ModuleImport> {
  readonly kind: string;
  readonly metadata: ModuleMetadata<Import> & Extra;
}

/** The decorator behind `restRootModule`, `restModule` and the like: `kind` names it in messages. */
export function defineModule<Extra>(kind: string, metadata: ModuleMetadata & Extra): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(MODULE, { kind, metadata } satisfies ModuleDefinition<Extra>, target);
  };
}

export function getModuleDefinition<Extra, Import extends ModuleImport = ModuleImport>(cls: unknown): ModuleDefinition<Extra, Import> | undefined {
  return typeof cls === 'function' ? Reflect.getOwnMetadata(MODULE, cls) : undefined;
}

type Level = 'providersPerMod' | 'providersPerRou' | 'providersPerReq';

/** One import of a module: the same class imported twice (say with different options) is two nodes. */
export interface ModuleNode<Extra = unknown, Place = unknown, Import extends ModuleImport = ModuleImport> {
  readonly moduleClass: Class;
  readonly name: string;
  readonly metadata: ModuleMetadata<Import> & Extra;
  /** Where the host's ModulePlacement put it. */
  readonly place: Place;
  readonly imports: readonly ModuleNode<Extra, Place, Import>[];
  readonly providers: Readonly<Record<Level, readonly Provider[]>>;
  readonly exports: readonly Token[];
}

/**
 * The module graph of an application, with the injector of every level above routes built and
 * checked: the application injector, and one module injector per node.
 */
export class ModuleTree<Extra = unknown, Place = unknown, Import extends ModuleImport = ModuleImport> {
  readonly root: ModuleNode<Extra, Place, Import>;
  /** Every node, imports before their importers. */
  readonly nodes: ModuleNode<Extra, Place, Import>[] = [];
  readonly appInjector: Injector;
  readonly #moduleInjectors = new Map<ModuleNode<Extra, Place, Import>, Injector>();
  /** Plain (non-dynamic) imports by class, then place: a module imported twice that way is one node. */
  readonly #plainNodes = new Map<Class, Map<Place, ModuleNode<Extra, Place, Import>>>();
  readonly #placement: ModulePlacement<Place, Import>;

  constructor(rootModule: Class, placement: ModulePlacement<Place, Import>) {
    this.#placement = placement;
    const appProviders: ProviderList[] = [];
    this.root = this.#visit(rootModule, () => placement.root, [], appProviders);
    this.appInjector = new InjectorBlueprint('application', appProviders).instantiate();
    for (const list of appProviders) for (const provider of list) this.appInjector.blueprint.check(providerToken(provider));
    for (const node of this.nodes) {
      const injector = this.#buildModuleInjector(node);
      this.#moduleInjectors.set(node, injector);
      // Every module-level provider is proven resolvable now, used by a route or not.
      for (const provider of node.providers.providersPerMod) injector.blueprint.check(providerToken(provider));
    }
  }

  moduleInjector(node: ModuleNode<Extra, Place, Import>): Injector {
    return this.#moduleInjectors.get(node)!;
  }

  /** A level's providers for `node`: what its imports export at that level first, its own last (they win). */
  providersAt(node: ModuleNode<Extra, Place, Import>, level: 'providersPerRou' | 'providersPerReq'): Provider[] {
    return [...node.imports.flatMap((imported) => exportedAt(imported, level)), ...node.providers[level]];
  }

  /** The init hooks of the modules `node` imports, each built by its own module's injector. */
  initHooksFor(node: ModuleNode<Extra, Place, Import>): { hook: InitHook; from: ModuleNode<Extra, Place, Import> }[] {
    return node.imports.flatMap((imported) =>
      (imported.metadata.initHooks ?? []).map((hookClass) => {
        const blueprint = new InjectorBlueprint(`init hook ${tokenName(hookClass)} of ${imported.name}`, [hookClass], this.moduleInjector(imported).blueprint);
        blueprint.check(hookClass);
        return { hook: blueprint.instantiate(this.moduleInjector(imported)).get(hookClass), from: imported };
      }),
    );
  }

  /** `placeOf` is asked only once `entry` is known to be a module. */
  #visit(entry: ModuleImport, placeOf: () => Place, stack: readonly Class[], appProviders: ProviderList[]): ModuleNode<Extra, Place, Import> {
    const dynamic = typeof entry === 'function' ? undefined : entry;
    const moduleClass = dynamic?.module ?? (entry as Class);
    const importer = stack.at(-1);
    const definition = getModuleDefinition<Extra, Import>(moduleClass);
    if (definition === undefined) {
      const where = importer === undefined ? 'The application root' : `${tokenName(importer)} imports ${describeImport(entry)}, which`;
      throw new StartupError(`${where} is not a module: decorate the class with restModule({...}) (or restRootModule for the root).`);
    }
    if (moduleClass === importer) throw new StartupError(`${tokenName(moduleClass)} imports itself: remove it from its own imports.`);
    if (stack.includes(moduleClass)) {
      throw new StartupError(
        `Module import cycle: ${[...stack.slice(stack.indexOf(moduleClass)), moduleClass].map(tokenName).join(' -> ')}. Move what both need into a ` +
          `third module.`,
      );
    }
    const { metadata } = definition;
    const place = placeOf();
    const plain = dynamic === undefined || isPlainImport(dynamic);
    const shared = plain ? this.#plainNodes.get(moduleClass)?.get(place) : undefined;
    if (shared !== undefined) return shared;
    const imports = (metadata.imports ?? []).map((child) =>
      this.#visit(child, () => this.#placement.place(place, child), [...stack, moduleClass], appProviders),
    );
    // Application-level providers are one set for the whole application, however often a module is imported.
    if (metadata.providersPerApp !== undefined && !appProviders.includes(metadata.providersPerApp)) appProviders.push(metadata.providersPerApp);
    const providers = {
      providersPerMod: [...(metadata.providersPerMod ?? []), ...(dynamic?.providersPerMod ?? [])],
      providersPerRou: [...(metadata.providersPerRou ?? []), ...(dynamic?.providersPerRou ?? [])],
      providersPerReq: [...(metadata.providersPerReq ?? []), ...(dynamic?.providersPerReq ?? [])],
    };
    const node: ModuleNode<Extra, Place, Import> = {
      moduleClass,
      name: tokenName(moduleClass),
      metadata,
      place,
      imports,
      providers,
      exports: [...(metadata.exports ?? []), ...(dynamic?.exports ?? [])],
    };
    for (const token of node.exports) {
      const provided = Object.values(providers).some((list) => list.some((provider) => providerToken(provider) === token));
      const reexported = imports.some((imported) => imported.moduleClass === token);
      const app = (metadata.providersPerApp ? [...metadata.providersPerApp] : []).some((provider) => providerToken(provider) === token);
      if (!provided && !reexported && !app) {
        throw new StartupError(
          `${node.name} exports ${tokenName(token)}, which it neither provides (providersPerMod, providersPerRou, providersPerReq) nor imports as a module.`,
        );
      }
    }
    this.nodes.push(node);
    if (plain) {
      const byPlace = this.#plainNodes.get(moduleClass) ?? new Map<Place, ModuleNode<Extra, Place, Import>>();
      this.#plainNodes.set(moduleClass, byPlace.set(place, node));
    }
    return node;
  }

  #buildModuleInjector(node: ModuleNode<Extra, Place, Import>): Injector {
    // A module-level value exported by an import stays that import's single instance.
    const delegates = node.imports.flatMap((imported) =>
      exportedAt(imported, 'providersPerMod').map((provider) => {
        const token = providerToken(provider);
        return { token, useFactory: () => this.moduleInjector(findOwner(imported, token)).get(token) };
      }),
    );
    const blueprint = new InjectorBlueprint(`module ${node.name}`, [delegates, node.providers.providersPerMod], this.appInjector.blueprint);
    return blueprint.instantiate(this.appInjector);
  }
}

/** What `node` exports at `level`: its own providers named in `exports`, and its re-exported modules' exports. */
function exportedAt<Extra, Place, Import extends ModuleImport>(node: ModuleNode<Extra, Place, Import>, level: Level): Provider[] {
  return node.exports.flatMap((token) => {
    const reexported = node.imports.find((imported) => imported.moduleClass === token);
    if (reexported !== undefined) return exportedAt(reexported, level);
    return node.providers[level].filter((provider) => providerToken(provider) === token);
  });
}

/** The node whose own module-level providers hold `token`, following re-exports. */
function findOwner<Extra, Place, Import extends ModuleImport>(node: ModuleNode<Extra, Place, Import>, token: Token): ModuleNode<Extra, Place, Import> {
  if (node.providers.providersPerMod.some((provider) => providerToken(provider) === token)) return node;
  for (const exported of node.exports) {
    const reexported = node.imports.find((imported) => imported.moduleClass === exported);
    if (reexported !== undefined && exportedAt(reexported, 'providersPerMod').some((provider) => providerToken(provider) === token))
      return findOwner(reexported, token);
  }
  return node;
}

/** `{ module }` alone (or with only a host's fields, such as @lib/rest's `path`) adds nothing of its own: it can share a node. */
function isPlainImport(entry: DynamicModule): boolean {
  return entry.providersPerMod === undefined && entry.providersPerRou === undefined && entry.providersPerReq === undefined && entry.exports === undefined;
}

function describeImport(entry: ModuleImport): string {
  if (typeof entry === 'function') return tokenName(entry);
  if (entry !== null && typeof entry === 'object' && 'module' in entry) return `{ module: ${tokenName(entry.module)} }`;
  return String(entry);
}
