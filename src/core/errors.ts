/** Every mistake the host can find before serving: a missing provider, a cycle, a bad module or route. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/**
 * A value that could not be resolved when asked for (`Injector.get`): no provider, a cycle, an
 * external value not supplied. The host proves its own resolutions at start-up first
 * (`InjectorBlueprint.check`, which throws StartupError), so this comes from code that resolves
 * on its own, at start-up or while serving: an init hook or a handler using `RouteInfo.injector`,
 * or an injector made with `Injector.create()`.
 */
export class ResolutionError extends Error {
  override readonly name = 'ResolutionError';
}
