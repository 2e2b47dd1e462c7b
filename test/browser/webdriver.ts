/**
 * The smallest W3C WebDriver client the browser tests need (classic WebDriver over HTTP, with
 * fetch()): a session, navigation, windows, async scripts and cookies. Used for WebKitGTK, whose
 * driver (WebKitWebDriver) speaks only this protocol. Nothing here starts or stops processes.
 */

/** A WebDriver error answer ({ value: { error, message } } with a 4xx/5xx status), or no answer. */
export class WebDriverError extends Error {
  constructor(
    readonly command: string,
    readonly code: string,
    message: string,
  ) {
    super(`WebDriver ${command}: ${code}: ${message}`);
    this.name = 'WebDriverError';
  }
}

export interface WebDriverCookie {
  name: string;
  value: string;
  path?: string;
  domain?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: string;
  expiry?: number;
}

/** Each HTTP command gives up after this long, so a wedged driver fails a test instead of hanging it. */
const COMMAND_TIMEOUT_MS = 60_000;

async function call(base: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
  const command = `${method} ${path}`;
  let response: Response;
  try {
    response = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json; charset=utf-8' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(COMMAND_TIMEOUT_MS),
    });
  } catch (error) {
    throw new WebDriverError(command, 'no answer', String((error as Error).cause ?? error));
  }
  const text = await response.text();
  let parsed: { value?: unknown };
  try {
    parsed = JSON.parse(text) as { value?: unknown };
  } catch {
    throw new WebDriverError(command, `HTTP ${response.status}`, text.slice(0, 200));
  }
  // Errors are told by the status, never by the shape of the value: a script result may well
  // carry a key named "error" (our verdicts do).
  if (!response.ok) {
    const value = (parsed.value ?? {}) as { error?: string; message?: string };
    throw new WebDriverError(command, value.error ?? `HTTP ${response.status}`, value.message ?? text.slice(0, 200));
  }
  return parsed.value;
}

/** Whether a driver at `base` answers /status with ready: true. */
export async function driverReady(base: string): Promise<boolean> {
  try {
    const value = (await call(base, 'GET', '/status')) as { ready?: boolean };
    return value.ready === true;
  } catch {
    return false;
  }
}

export class WebDriverSession {
  private constructor(
    private readonly base: string,
    readonly id: string,
    readonly capabilities: Record<string, unknown>,
  ) {}

  /** POST /session with `alwaysMatch` capabilities. */
  static async create(base: string, alwaysMatch: Record<string, unknown>): Promise<WebDriverSession> {
    const value = (await call(base, 'POST', '/session', { capabilities: { alwaysMatch } })) as { sessionId: string; capabilities: Record<string, unknown> };
    return new WebDriverSession(base, value.sessionId, value.capabilities);
  }

  private command(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    return call(this.base, method, `/session/${this.id}${path}`, body);
  }

  async setTimeouts(timeouts: { script?: number; pageLoad?: number; implicit?: number }): Promise<void> {
    await this.command('POST', '/timeouts', timeouts);
  }

  /** Navigates the current window and waits for its load event (the session's page load strategy). */
  async navigate(url: string): Promise<void> {
    await this.command('POST', '/url', { url });
  }

  /** Runs `script` as a function body; its last argument is the callback that ends it with a value. */
  executeAsync<T>(script: string, args: unknown[] = []): Promise<T> {
    return this.command('POST', '/execute/async', { script, args }) as Promise<T>;
  }

  async windowHandle(): Promise<string> {
    return (await this.command('GET', '/window')) as string;
  }

  async windowHandles(): Promise<string[]> {
    return (await this.command('GET', '/window/handles')) as string[];
  }

  /** Opens a new top-level window (not made current); its handle. */
  async newWindow(type: 'window' | 'tab' = 'window'): Promise<string> {
    return ((await this.command('POST', '/window/new', { type })) as { handle: string }).handle;
  }

  async switchToWindow(handle: string): Promise<void> {
    await this.command('POST', '/window', { handle });
  }

  /** Closes the current window; the handles that remain. */
  async closeWindow(): Promise<string[]> {
    return (await this.command('DELETE', '/window')) as string[];
  }

  /** The cookies of the current document's URL (HttpOnly ones included). */
  async cookies(): Promise<WebDriverCookie[]> {
    return (await this.command('GET', '/cookie')) as WebDriverCookie[];
  }

  /** Deletes every cookie of the current document's URL. */
  async deleteCookies(): Promise<void> {
    await this.command('DELETE', '/cookie');
  }

  /** DELETE /session: the driver closes the browser. */
  async delete(): Promise<void> {
    await call(this.base, 'DELETE', `/session/${this.id}`);
  }
}
