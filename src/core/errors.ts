/** Every mistake the host can find before serving: a missing provider, a cycle, a bad module or route. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
