// Decorator metadata needs the Reflect API: loading @lib/core installs it, so user code never has to.
import 'reflect-metadata';

export { inject, injectable, optional, readDependencies, type Dependency } from './decorators.js';
export { ResolutionError, StartupError } from './errors.js';
export { Injector, InjectorBlueprint } from './injector.js';
export {
  defineModule,
  getModuleDefinition,
  ModuleTree,
  type DynamicModule,
  type InitHook,
  type LeveledProviders,
  type ModuleDefinition,
  type ModuleImport,
  type ModuleMetadata,
  type ModuleNode,
  type ModulePlacement,
} from './modules.js';
export {
  isClassProvider,
  isFactoryProvider,
  isTokenProvider,
  isValueProvider,
  ProviderBuilder,
  providerToken,
  type ClassProvider,
  type FactoryProvider,
  type Provider,
  type ProviderList,
  type TokenProvider,
  type ValueProvider,
} from './providers.js';
export { InjectionToken, tokenName, type Class, type Token } from './tokens.js';
