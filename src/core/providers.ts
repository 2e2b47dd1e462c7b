/** Providers: their shapes, the checks on them, and the guards that tell them apart. */
import { StartupError } from './errors.js';
import { isInjectionToken, tokenName, type Class, type Token } from './tokens.js';

interface Multi {
  /** Collect every provider of the token at this level into an array. */
  multi?: boolean;
}
export interface ValueProvider<T = unknown> extends Multi {
  token: Token<T>;
  useValue: T;
}
export interface ClassProvider<T = unknown> extends Multi {
  token: Token<T>;
  useClass: Class<T>;
}
export interface FactoryProvider<T = unknown> extends Multi {
  token: Token<T>;
  useFactory: (...deps: never[]) => T;
  deps?: readonly Token[];
}
export interface TokenProvider<T = unknown> extends Multi {
  token: Token<T>;
  /** Another token whose value this one takes. */
  useToken: Token<T>;
}

export type Provider = Class | ValueProvider | ClassProvider | FactoryProvider | TokenProvider;

/** `{ token, useValue }`. A class given as its own provider is none of these four shapes. */
export function isValueProvider(provider: Provider): provider is ValueProvider {
  return typeof provider !== 'function' && 'useValue' in provider;
}

/** `{ token, useClass }`. */
export function isClassProvider(provider: Provider): provider is ClassProvider {
  return typeof provider !== 'function' && 'useClass' in provider;
}

/** `{ token, useFactory, deps? }`. */
export function isFactoryProvider(provider: Provider): provider is FactoryProvider {
  return typeof provider !== 'function' && 'useFactory' in provider;
}

/** `{ token, useToken }`. */
export function isTokenProvider(provider: Provider): provider is TokenProvider {
  return typeof provider !== 'function' && 'useToken' in provider;
}

/** A fluent list of providers, accepted wherever an array of providers is. */
export class ProviderBuilder implements Iterable<Provider> {
  readonly #providers: Provider[] = [];

  useValue<T>(token: Token<T>, useValue: T, multi?: boolean): this {
    return this.#add({ token, useValue, multi });
  }
  useClass<T>(token: Token<T>, useClass: Class<T>, multi?: boolean): this {
    return this.#add({ token, useClass, multi });
  }
  useFactory<T>(token: Token<T>, useFactory: (...deps: never[]) => T, deps: readonly Token[] = [], multi?: boolean): this {
    return this.#add({ token, useFactory, deps, multi });
  }
  useToken<T>(token: Token<T>, useToken: Token<T>, multi?: boolean): this {
    return this.#add({ token, useToken, multi });
  }

  [Symbol.iterator](): Iterator<Provider> {
    return this.#providers[Symbol.iterator]();
  }

  #add(provider: Provider): this {
    this.#providers.push(provider);
    return this;
  }
}

export type ProviderList = readonly Provider[] | ProviderBuilder;

/** Checks one provider's shape at start-up; `where` names the list it came from. */
export function checkProvider(provider: unknown, where: string): Provider {
  if (typeof provider === 'function') return provider as Class;
  const shape = provider as Partial<ValueProvider & ClassProvider & FactoryProvider & TokenProvider> | null;
  if (shape === null || typeof shape !== 'object' || !isInjectionToken(shape.token)) {
    throw new StartupError(`${where}: ${describe(provider)} is not a provider: use a class, or { token, useValue | useClass | useFactory | useToken }.`);
  }
  const kinds = ['useValue', 'useClass', 'useFactory', 'useToken'].filter((kind) => kind in shape);
  if (kinds.length !== 1) {
    throw new StartupError(
      `${where}: the provider of ${tokenName(shape.token)} needs exactly one of useValue, useClass, useFactory, useToken (it has ` +
        `${kinds.length === 0 ? 'none' : kinds.join(' and ')}).`,
    );
  }
  if ('useClass' in shape && typeof shape.useClass !== 'function') throw new StartupError(`${where}: useClass of ${tokenName(shape.token)} is not a class.`);
  if ('useFactory' in shape && typeof shape.useFactory !== 'function')
    throw new StartupError(`${where}: useFactory of ${tokenName(shape.token)} is not a function.`);
  if ('useToken' in shape && !isInjectionToken(shape.useToken)) throw new StartupError(`${where}: useToken of ${tokenName(shape.token)} is not a token.`);
  return shape as Provider;
}

export function providerToken(provider: Provider): Token {
  return typeof provider === 'function' ? provider : provider.token;
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
