/** The injector: resolves providers by token, level by level, and the blueprint it is built from. */
import { readDependencies, type Dependency } from './decorators.js';
import { ResolutionError, StartupError } from './errors.js';
import {
  checkProvider,
  isClassProvider,
  isFactoryProvider,
  isTokenProvider,
  isValueProvider,
  providerToken,
  type Provider,
  type ProviderList,
} from './providers.js';
import { tokenName, type Token } from './tokens.js';

/** How to make one value: what it needs, and what to do with it. Compiled once per provider. */
interface Recipe {
  readonly deps: readonly Dependency[];
  readonly create: (args: unknown[]) => unknown;
}

export interface Entry {
  readonly token: Token;
  readonly multi: boolean;
  readonly recipes: Recipe[];
  /** Supplied when an injector is created (e.g. the RequestContext of a request), never built. */
  readonly external: boolean;
}

/**
 * The providers of one level (application, a module, a route, a request), compiled once at
 * start-up: reflection and provider shapes are read here, never per request. An `Injector` is
 * an instance of a blueprint: for a request level, one per request, sharing everything compiled.
 */
export class InjectorBlueprint {
  readonly #entries = new Map<Token, Entry>();
  /** Tokens already proven resolvable by check(). */
  readonly #checked = new Set<Token>();

  constructor(
    /** Names the level in messages, e.g. `module AppModule` or `route GET /users`. */
    readonly label: string,
    providers: Iterable<ProviderList | Provider> = [],
    readonly parent?: InjectorBlueprint,
    externals: readonly Token[] = [],
  ) {
    for (const item of providers) {
      for (const provider of isProviderList(item) ? item : [item]) this.#add(checkProvider(provider, label));
    }
    for (const token of externals) this.#entries.set(token, { token, multi: false, recipes: [], external: true });
  }

  /** Whether this level itself (not a parent) provides `token`. */
  provides(token: Token): boolean {
    return this.#entries.has(token);
  }

  /** This level's own entry for `token`. */
  ownEntry(token: Token): Entry | undefined {
    return this.#entries.get(token);
  }

  /**
   * Proves at start-up that `token` can be built from this level upwards: every non-optional
   * dependency has a provider and there is no cycle. `chain` names who asked, for the message.
   */
  check(token: Token, chain: readonly string[] = []): void {
    this.#checkDependency({ token, optional: false }, chain, new Set());
  }

  /** Creates an injector of this level below `parent`, with the values of its external tokens. */
  instantiate(parent?: Injector, externals?: ReadonlyMap<Token, unknown>): Injector {
    return new Injector(this, parent, externals);
  }

  /** The entry for `token` from this level upwards, with the level that has it. */
  #lookup(token: Token): { blueprint: InjectorBlueprint; entry: Entry } | undefined {
    for (let blueprint: InjectorBlueprint | undefined = this; blueprint !== undefined; blueprint = blueprint.parent) {
      const entry = blueprint.#entries.get(token);
      if (entry !== undefined) return { blueprint, entry };
    }
    return undefined;
  }

  #checkDependency(dependency: Dependency, chain: readonly string[], visiting: Set<Entry>): void {
    const name = tokenName(dependency.token);
    const found = this.#lookup(dependency.token);
    if (found === undefined) {
      if (dependency.optional) return;
      const levels: string[] = [];
      for (let blueprint: InjectorBlueprint | undefined = this; blueprint !== undefined; blueprint = blueprint.parent) levels.push(blueprint.label);
      throw new StartupError(
        `No provider for ${name}: ${[...chain, name].join(' -> ')} (looked in ${levels.join(', ')}). Provide it in one of these levels, or mark the ` +
          `parameter @optional().`,
      );
    }
    const { blueprint, entry } = found;
    if (entry.external || blueprint.#checked.has(entry.token)) return;
    if (visiting.has(entry)) {
      throw new StartupError(`Dependency cycle: ${[...chain, name].join(' -> ')}. Break it, e.g. with a factory that builds one side later.`);
    }
    visiting.add(entry);
    for (const recipe of entry.recipes) {
      for (const dep of recipe.deps) blueprint.#checkDependency(dep, [...chain, name], visiting);
    }
    visiting.delete(entry);
    blueprint.#checked.add(entry.token);
  }

  #add(provider: Provider): void {
    const token = providerToken(provider);
    const multi = typeof provider !== 'function' && provider.multi === true;
    const recipe = compileRecipe(provider);
    const existing = this.#entries.get(token);
    if (existing !== undefined && existing.multi !== multi) {
      throw new StartupError(`${this.label}: ${tokenName(token)} is provided both with and without multi: true; use one or the other.`);
    }
    if (multi && existing !== undefined) existing.recipes.push(recipe);
    // A later single provider replaces an earlier one: the narrower declaration wins.
    else this.#entries.set(token, { token, multi, recipes: [recipe], external: false });
  }
}

function compileRecipe(provider: Provider): Recipe {
  if (isValueProvider(provider)) {
    const value = provider.useValue;
    return { deps: [], create: () => value };
  }
  if (isClassProvider(provider)) {
    const cls = provider.useClass as new (...args: unknown[]) => unknown;
    return { deps: readDependencies(provider.useClass), create: (args) => new cls(...args) };
  }
  if (isFactoryProvider(provider)) {
    const factory = provider.useFactory as (...args: unknown[]) => unknown;
    return { deps: (provider.deps ?? []).map((token) => ({ token, optional: false })), create: (args) => factory(...args) };
  }
  if (isTokenProvider(provider)) {
    return { deps: [{ token: provider.useToken, optional: false }], create: ([value]) => value };
  }
  // A class, provided as itself.
  const cls = provider as new (...args: unknown[]) => unknown;
  return { deps: readDependencies(provider), create: (args) => new cls(...args) };
}

function isProviderList(item: ProviderList | Provider): item is ProviderList {
  return Array.isArray(item) || (typeof item === 'object' && item !== null && Symbol.iterator in item);
}

/**
 * Values of one level. A value is built on first use, from the injector whose level provides
 * it, and kept: one per application, module, route or request, as the level says.
 */
export class Injector {
  readonly #values: Map<Token, unknown>;
  readonly #building = new Set<Token>();

  constructor(
    readonly blueprint: InjectorBlueprint,
    readonly parent?: Injector,
    externals?: ReadonlyMap<Token, unknown>,
  ) {
    this.#values = new Map(externals);
  }

  /** Builds an injector from a plain provider list, for use outside the module system. */
  static create(providers: ProviderList, parent?: Injector, label = 'injector'): Injector {
    return new InjectorBlueprint(label, [providers], parent?.blueprint).instantiate(parent);
  }

  /**
   * The value of `token`, from this level upwards. Throws ResolutionError when it cannot be
   * built (no provider, a cycle, an external value not supplied), unless `optional`.
   */
  get<T>(token: Token<T>): T;
  get<T>(token: Token<T>, optional: true): T | undefined;
  get<T>(token: Token<T>, optional = false): T | undefined {
    for (let injector: Injector | undefined = this; injector !== undefined; injector = injector.parent) {
      const value = injector.#values.get(token);
      if (value !== undefined || injector.#values.has(token)) return value as T;
      const entry = injector.blueprint.ownEntry(token);
      if (entry !== undefined) return injector.#build(entry) as T;
    }
    if (optional) return undefined;
    throw new ResolutionError(`No provider for ${tokenName(token)} (looked from ${this.blueprint.label} upwards).`);
  }

  #build(entry: Entry): unknown {
    if (entry.external) throw new ResolutionError(`${this.blueprint.label}: ${tokenName(entry.token)} is supplied when the injector is created, and was not.`);
    if (this.#building.has(entry.token)) throw new ResolutionError(`Dependency cycle through ${tokenName(entry.token)} in ${this.blueprint.label}.`);
    this.#building.add(entry.token);
    try {
      const values = entry.recipes.map((recipe) => recipe.create(recipe.deps.map((dep) => (dep.optional ? this.get(dep.token, true) : this.get(dep.token)))));
      const value = entry.multi ? values : values[0];
      this.#values.set(entry.token, value);
      return value;
    } finally {
      this.#building.delete(entry.token);
    }
  }
}
