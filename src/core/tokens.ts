/** Anything `new`-able: classes are tokens of themselves. */
export type Class<T = unknown> = abstract new (...args: never[]) => T;

/** A token for what is not a class (a string, a config object, an interface). */
export class InjectionToken<T> {
  /** Phantom field: carries `T` for type inference only. */
  declare readonly __type?: T;

  constructor(readonly description: string) {}

  toString(): string {
    return `InjectionToken(${this.description})`;
  }
}

export type Token<T = unknown> = Class<T> | InjectionToken<T>;

/** Whether `value` is a DI token: a class (a token of itself) or an InjectionToken. */
export function isInjectionToken(value: unknown): value is Token {
  return typeof value === 'function' || value instanceof InjectionToken;
}

/** How a token is named in error messages. */
export function tokenName(token: unknown): string {
  if (typeof token === 'function') return token.name || '(anonymous class)';
  if (token instanceof InjectionToken) return token.toString();
  return String(token);
}
