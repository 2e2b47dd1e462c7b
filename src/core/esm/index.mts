// @lib/core for import: a wrapper of the CommonJS implementation, so that import and require()
// share one copy of it (one engine, one set of error classes). Values are listed by name (an
// `export *` would also publish CommonJS's __esModule); test/packaging checks the list is complete.
export type * from '../index.js';
export {
  defineModule,
  getModuleDefinition,
  inject,
  injectable,
  InjectionToken,
  Injector,
  InjectorBlueprint,
  isClassProvider,
  isFactoryProvider,
  isTokenProvider,
  isValueProvider,
  ModuleTree,
  optional,
  ProviderBuilder,
  providerToken,
  readDependencies,
  ResolutionError,
  StartupError,
  tokenName,
} from '../index.js';
