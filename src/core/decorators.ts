/** The DI decorators (@injectable, @inject, @optional) and how a class's dependencies are read back. */
import 'reflect-metadata';

import { StartupError } from './errors.js';
import { isInjectionToken, tokenName, type Class, type Token } from './tokens.js';

export interface Dependency {
  readonly token: Token;
  readonly optional: boolean;
}

/** What `design:paramtypes` records for interfaces, unions and primitives: nothing to look up. */
const NOT_INJECTABLE = new Set<unknown>([Object, String, Number, Boolean, Symbol, BigInt, Array, Function, Promise]);
const INJECT = Symbol('inject');
const OPTIONAL = Symbol('optional');

const INJECTABLE = Symbol('injectable');

/**
 * Marks a class whose constructor parameters are injected. A decorator's mere presence makes
 * TypeScript emit the parameter types (`design:paramtypes`) injection reads, when
 * `emitDecoratorMetadata` is on; the mark tells a class compiled without it from an undecorated one.
 */
export function injectable(): ClassDecorator {
  return (target) => Reflect.defineMetadata(INJECTABLE, true, target);
}

/** Injects `token` into this constructor parameter, in place of its declared type. */
export function inject(token: Token): ParameterDecorator {
  return (target, _key, index) => {
    if (!isInjectionToken(token)) {
      throw new StartupError(
        `@inject() on parameter ${index} of ${tokenName(target)} got ${String(token)}, not a class or an InjectionToken (often an import cycle: the ` +
          `class is still undefined when the decorator runs).`,
      );
    }
    const tokens: Map<number, Token> = Reflect.getOwnMetadata(INJECT, target) ?? new Map();
    tokens.set(index, token);
    Reflect.defineMetadata(INJECT, tokens, target);
  };
}

/** This constructor parameter receives `undefined` when no provider is found. */
export function optional(): ParameterDecorator {
  return (target, _key, index) => {
    const indexes: Set<number> = Reflect.getOwnMetadata(OPTIONAL, target) ?? new Set();
    indexes.add(index);
    Reflect.defineMetadata(OPTIONAL, indexes, target);
  };
}

/**
 * A class's constructor dependencies, from the types TypeScript emitted (`design:paramtypes`)
 * and `@inject`/`@optional`. Read once, at start-up; never per request.
 */
export function readDependencies(cls: Class): Dependency[] {
  // getMetadata, not getOwnMetadata: a subclass without a constructor of its own takes its parent's.
  const types: unknown[] = Reflect.getMetadata('design:paramtypes', cls) ?? [];
  const tokens: Map<number, Token> = Reflect.getMetadata(INJECT, cls) ?? new Map();
  const optionals: Set<number> = Reflect.getMetadata(OPTIONAL, cls) ?? new Set();
  if (types.length === 0 && cls.length > 0 && tokens.size === 0) {
    // Any decorator of ours leaves metadata on the class; with it, only the compiler's part is missing.
    if (Reflect.getOwnMetadataKeys(cls).length > 0) {
      throw new StartupError(
        `${tokenName(cls)} is decorated, but TypeScript emitted no constructor parameter types for it: compile with "experimentalDecorators": true ` +
          `and "emitDecoratorMetadata": true in tsconfig.json, with tsc (esbuild and tsx never emit them).`,
      );
    }
    throw new StartupError(
      `${tokenName(cls)} takes constructor parameters but has no decorator, so their types are unknown: add @injectable() (or @controller()) to the class.`,
    );
  }
  const count = Math.max(types.length, cls.length, ...[...tokens.keys()].map((index) => index + 1));
  return Array.from({ length: count }, (_, index) => {
    const token = tokens.get(index) ?? types[index];
    if (!isInjectionToken(token) || NOT_INJECTABLE.has(token)) {
      throw new StartupError(
        `Parameter ${index} of ${tokenName(cls)}'s constructor has no injectable type (an interface, a union or a primitive): give it a class type, or ` +
          `@inject(SOME_TOKEN).`,
      );
    }
    return { token, optional: optionals.has(index) };
  });
}
