/**
 * One small driver interface over three real browser engines, so the same browser scenarios run
 * in Chromium, Firefox and WebKit. Every verdict comes from the browser's own fetch() run by page
 * script; nothing here judges CORS itself.
 *
 * - Chromium: Debian's chromium, driven by playwright-core over CDP.
 * - Firefox: Debian's firefox-esr, driven by puppeteer-core over WebDriver BiDi.
 * - WebKit: WebKitGTK's MiniBrowser under WebKitWebDriver (classic W3C WebDriver, ./webdriver.ts)
 *   on a private Xvfb display (the GTK MiniBrowser has no headless mode).
 *
 * Nothing is downloaded or installed: a missing binary is an Error that names the apt-get command.
 * Every process started here is killed by `close()`, and every temporary profile removed; if the
 * test process exits or is killed first (a tap timeout skips teardowns), see `Leash`.
 *
 * Launch times measured on 2 idle cores: Chromium 0.3-0.6 s, Firefox 2-3 s, WebKit 0.4-0.8 s
 * (with both cores busy: about 1 s, 4.5-8 s and 1.3 s).
 *
 * The pages are served by the test: `pageHtml('blank')` for plain pages, `pageHtml('sandbox')` for
 * a page holding a sandboxed iframe (opaque origin, so its requests carry `Origin: null`).
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { chromium, type BrowserContext } from 'playwright-core';
import puppeteer, { type Browser as PuppeteerBrowser } from 'puppeteer-core';

import { driverReady, WebDriverSession } from './webdriver.js';
import { freePort } from '../helpers/ports.js';

export type EngineName = 'chromium' | 'firefox' | 'webkit';
export const ENGINES: readonly EngineName[] = ['chromium', 'firefox', 'webkit'];

/**
 * The oldest major version of Debian's chromium and firefox-esr the browser suites are run with
 * in full: Debian 12's own (bookworm main: chromium 150.0.7871.100, firefox-esr 140.12.0esr);
 * its security updates bring 156 and 153, proven too. scripts/test-tools.sh states the same
 * numbers and refuses an older browser before tap starts; launchEngine() refuses it as well.
 * WebKitGTK has no minimum here: Debian 12 ships one version (2.50.6).
 */
export const MINIMUM_MAJOR: Readonly<Record<'chromium' | 'firefox', number>> = { chromium: 150, firefox: 140 };

/** The major version in an engine's version text: 'Firefox 140.12.0esr' -> 140, 'WebKitGTK 2.50.6' -> 2. */
export function majorVersion(version: string): number {
  const major = /(\d+)\./.exec(version)?.[1];
  if (major === undefined) throw new Error(`no version number in ${JSON.stringify(version)}`);
  return Number(major);
}

/**
 * The first Firefox ESR that does not reliably reuse a cached preflight answer in a fresh profile
 * (Max-Age 60 or none): 140.12.0esr reuses it from the first request, as Chromium and WebKit do;
 * 153.7.0esr preflights the first URL again (measured: see engines-smoke.test.ts, test 5). The
 * change came in a Firefox release between 141 and 153, not narrowed further: Debian ships ESRs
 * only, and 153 is the first of them with it.
 */
export const FIREFOX_UNRELIABLE_PREFLIGHT_CACHE = 153;

/** Whether the engine reuses the first cached preflight answer, as Max-Age says (see FIREFOX_UNRELIABLE_PREFLIGHT_CACHE). */
export function reusesFirstPreflight(engine: Pick<Engine, 'name' | 'version'>): boolean {
  return engine.name !== 'firefox' || majorVersion(engine.version) < FIREFOX_UNRELIABLE_PREFLIGHT_CACHE;
}

/** What the browser made of one fetch(): resolved with what page script could read, or the rejection. */
export interface Verdict {
  resolved: boolean;
  status?: number;
  body?: string;
  headers?: Record<string, string | null>;
  /**
   * `name: message` of the rejection (a CORS failure is a TypeError in all three engines; the
   * messages differ). Also set, with resolved: true, if reading the body failed.
   */
  error?: string;
}

export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  credentials?: 'omit' | 'same-origin' | 'include';
}

export interface OpenOptions {
  /** The page at the URL serves `pageHtml('sandbox')`: wait for its frame, enable fetchFromSandbox. */
  sandboxedFrame?: boolean;
  /**
   * Record the page's console from before it loads: `EnginePage.console`. Chromium and Firefox
   * only; WebKit refuses (WebDriver classic has no console, and WebKitWebDriver no log endpoint).
   */
  console?: boolean;
}

/**
 * One message of a page's console as the engine reports it to its driver. How each engine's CORS
 * errors arrive (measured on Chromium 156 and Firefox 153.7 ESR):
 * - Chromium (playwright-core, CDP): as console messages of type 'error', e.g. "Access to fetch at
 *   'URL' from origin 'O' has been blocked by CORS policy: ...", each followed by "Failed to load
 *   resource: net::ERR_FAILED". Playwright's page 'console' event carries them (no CDP session of
 *   our own is needed: Log.entryAdded says the same).
 * - Firefox (puppeteer-core, WebDriver BiDi): as BiDi log entries of type 'javascript' (Firefox
 *   forwards nsIScriptError messages of the page's window at level error), which puppeteer turns
 *   into 'pageerror' events, not 'console' ones: "Cross-Origin Request Blocked: The Same Origin
 *   Policy disallows reading the remote resource at URL. (Reason: ...)", each followed by one whose
 *   reason is "CORS request did not succeed". No preference and no stdout reading is needed.
 */
export interface ConsoleEntry {
  /** Chromium: the console message type ('error', 'warning', 'log', ...). Firefox: 'error' for a page error, else the console message type. */
  level: string;
  text: string;
}

export interface ConsoleLog {
  /** Every message so far, in the order the driver reported them. */
  readonly entries: readonly ConsoleEntry[];
  /**
   * The first message, already reported or still to come, that `match` accepts. Waits for the
   * event, no polling; rejects after `timeoutMs` (default 60 s, a bound for a broken run, not a
   * delay anything waits out) naming the messages seen.
   */
  waitFor(match: (entry: ConsoleEntry) => boolean, timeoutMs?: number): Promise<ConsoleEntry>;
}

/** A ConsoleLog fed by an engine's driver events. */
class ConsoleRecorder implements ConsoleLog {
  readonly entries: ConsoleEntry[] = [];
  readonly #waiting = new Set<{ match: (entry: ConsoleEntry) => boolean; found: (entry: ConsoleEntry) => void }>();

  add(entry: ConsoleEntry): void {
    this.entries.push(entry);
    for (const waiter of this.#waiting) {
      if (waiter.match(entry)) {
        this.#waiting.delete(waiter);
        waiter.found(entry);
      }
    }
  }

  waitFor(match: (entry: ConsoleEntry) => boolean, timeoutMs = 60_000): Promise<ConsoleEntry> {
    const seen = this.entries.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        found: (entry: ConsoleEntry) => {
          clearTimeout(timer);
          resolve(entry);
        },
      };
      const timer = setTimeout(() => {
        this.#waiting.delete(waiter);
        const seenTexts = this.entries.map((entry) => `  [${entry.level}] ${entry.text}`).join('\n');
        reject(new Error(`no matching console message within ${timeoutMs} ms; the page's console had:\n${seenTexts || '  (nothing)'}`));
      }, timeoutMs);
      this.#waiting.add(waiter);
    });
  }
}

export interface EnginePage {
  /**
   * fetch(url, init) run by page script; the browser's CORS verdict as data. `read` lists response
   * header names to read with response.headers.get() (default ['x-exposed','x-hidden','set-cookie']).
   */
  fetch(url: string, init?: FetchInit, read?: string[]): Promise<Verdict>;
  /**
   * The same fetch, run inside the sandboxed iframe (sandbox="allow-scripts": opaque origin, so it
   * sends Origin: null) of a page opened with open(url, { sandboxedFrame: true }).
   */
  fetchFromSandbox(url: string, init?: FetchInit, read?: string[]): Promise<Verdict>;
  /** The page's console, when opened with `{ console: true }` (see ConsoleEntry). */
  readonly console?: ConsoleLog;
  close(): Promise<void>;
}

export interface Engine {
  readonly name: EngineName;
  /** e.g. 'Chromium 156.0.8078.79', 'Firefox 153.7.0esr', 'WebKitGTK 2.50.6'. */
  readonly version: string;
  /** Wall time launchEngine() took, in milliseconds. */
  readonly launchMs: number;
  /**
   * A new page navigated to `url` (waits for its load event). Chromium and Firefox: a new tab.
   * WebKit: a MiniBrowser window of its own (measured: WebKitGTK 2.50's MiniBrowser opens as many
   * as asked under automation, so pages never share one; a closed page's window is reused).
   * WebDriver has one current window per session, so WebKit's page operations take turns:
   * concurrent calls are queued, never interleaved.
   */
  open(url: string, options?: OpenOptions): Promise<EnginePage>;
  /** The cookies the browser would send to `url` (HttpOnly ones included). */
  cookies(url: string): Promise<{ name: string; value: string; httpOnly: boolean }[]>;
  /** Forgets every cookie (WebKit: of 127.0.0.1 and localhost; see launchWebKit). */
  clearCookies(): Promise<void>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Binaries

const ARCH = process.arch === 'arm64' ? 'aarch64' : 'x86_64';

/** Where Debian puts each binary; the first that exists is used. */
export const BINARIES: Readonly<Record<EngineName, Readonly<Record<string, readonly string[]>>>> = {
  chromium: { chromium: ['/usr/lib/chromium/chromium', '/usr/bin/chromium'] },
  firefox: { 'firefox-esr': ['/usr/lib/firefox-esr/firefox-esr'] },
  webkit: {
    WebKitWebDriver: ['/usr/bin/WebKitWebDriver'],
    MiniBrowser: [`/usr/lib/${ARCH}-linux-gnu/webkit2gtk-4.1/MiniBrowser`],
    Xvfb: ['/usr/bin/Xvfb'],
  },
};

/** The one command that installs each engine (as root). */
export const INSTALL: Readonly<Record<EngineName, string>> = {
  chromium: 'apt-get install -y --no-install-recommends chromium',
  firefox: 'apt-get install -y --no-install-recommends firefox-esr',
  webkit: 'apt-get install -y --no-install-recommends webkit2gtk-driver xvfb',
};

/** The binaries of one engine, by role; an Error naming the install command when one is missing. */
export function checkInstalled(name: EngineName, table: Readonly<Record<string, readonly string[]>> = BINARIES[name]): Record<string, string> {
  const found: Record<string, string> = {};
  const missing: string[] = [];
  for (const [role, candidates] of Object.entries(table)) {
    const path = candidates.find((candidate) => existsSync(candidate));
    if (path === undefined) missing.push(`${role} (looked for ${candidates.join(', ')})`);
    else found[role] = path;
  }
  if (missing.length > 0) {
    throw new Error(
      `The ${name} engine is not installed: missing ${missing.join('; ')}. ` +
        `Install it with: ${INSTALL[name]} (as root; run apt-get update first on a fresh machine). The browser tests never skip an engine.`,
    );
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The page side: one fetch function, run as is by every engine and inside the sandboxed frame.

interface FetchArgs {
  url: string;
  init: FetchInit;
  read: string[];
}

const DEFAULT_READ = ['x-exposed', 'x-hidden', 'set-cookie'];

/**
 * Runs in the browser (its source is sent there: it must stay self-contained). Never rejects:
 * a rejection of fetch() becomes { resolved: false, error: 'name: message' }.
 */
async function runFetch(args: FetchArgs): Promise<Verdict> {
  let response: Response;
  try {
    response = await fetch(args.url, args.init as RequestInit);
  } catch (error) {
    const e = error as Error;
    return { resolved: false, error: `${e.name}: ${e.message}` };
  }
  const headers: Record<string, string | null> = {};
  for (const name of args.read) headers[name] = response.headers.get(name);
  try {
    return { resolved: true, status: response.status, body: await response.text(), headers };
  } catch (error) {
    const e = error as Error;
    return { resolved: true, status: response.status, headers, error: `${e.name}: ${e.message} (reading the body)` };
  }
}

interface SandboxHost {
  __enginesSandbox?: { ready: Promise<void>; fetch(args: FetchArgs): Promise<Verdict> };
}

/** Runs in the page: 'ready' once the sandboxed frame has started, else why not. */
function awaitSandbox(): Promise<string> {
  const host = (globalThis as unknown as SandboxHost).__enginesSandbox;
  if (host === undefined) return Promise.resolve('missing');
  return Promise.race([host.ready.then(() => 'ready'), new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 15_000))]);
}

/** Runs in the page: the fetch, posted to the sandboxed frame and its verdict posted back. */
function sandboxFetch(args: FetchArgs): Promise<Verdict> {
  return (globalThis as unknown as SandboxHost).__enginesSandbox!.fetch(args);
}

// The page's half of the sandbox protocol. The listener is installed before the iframe exists, so
// the frame's 'ready' message cannot be missed; messages from anything but the frame are ignored.
const PARENT_SCRIPT = `(() => {
  let markReady;
  const ready = new Promise((resolve) => { markReady = resolve; });
  const waiting = new Map();
  let next = 0;
  const frame = () => document.getElementById('engines-sandbox');
  addEventListener('message', (event) => {
    const iframe = frame();
    if (iframe === null || event.source !== iframe.contentWindow || !event.data) return;
    if (event.data.kind === 'engines:ready') markReady();
    if (event.data.kind === 'engines:verdict' && waiting.has(event.data.id)) {
      waiting.get(event.data.id)(event.data.verdict);
      waiting.delete(event.data.id);
    }
  });
  globalThis.__enginesSandbox = {
    ready,
    async fetch(args) {
      await ready;
      const id = ++next;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        frame().contentWindow.postMessage({ kind: 'engines:fetch', id, args }, '*');
      });
    },
  };
})();`;

function frameDocument(): string {
  return `<!doctype html><meta charset="utf-8"><title>sandboxed</title><script>
const runFetch = ${runFetch.toString()};
addEventListener('message', (event) => {
  if (event.source !== parent || !event.data || event.data.kind !== 'engines:fetch') return;
  const { id, args } = event.data;
  runFetch(args).then((verdict) => parent.postMessage({ kind: 'engines:verdict', id, verdict }, '*'));
});
parent.postMessage({ kind: 'engines:ready' }, '*');
</script>`;
}

/**
 * The HTML the test serves for a page. 'blank': an empty page. 'sandbox': a page holding
 * `<iframe sandbox="allow-scripts" srcdoc=…>` whose script runs fetch() on request (postMessage)
 * and posts the verdict back; open such a page with `{ sandboxedFrame: true }`.
 */
export function pageHtml(kind: 'blank' | 'sandbox'): string {
  if (kind === 'blank') return '<!doctype html><meta charset="utf-8"><title>engines: blank</title>';
  const srcdoc = frameDocument().replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return (
    '<!doctype html><meta charset="utf-8"><title>engines: sandbox</title>' +
    `<script>${PARENT_SCRIPT}</script>` +
    `<iframe id="engines-sandbox" sandbox="allow-scripts" srcdoc="${srcdoc}"></iframe>`
  );
}

function fetchArgs(url: string, init: FetchInit = {}, read: string[] = DEFAULT_READ): FetchArgs {
  return { url, init, read };
}

/** A page (any engine) on which `evaluate(fn, arg)` runs fn in the page and returns its result. */
interface Evaluator {
  evaluate<A, R>(fn: (arg: A) => Promise<R>, arg: A): Promise<R>;
}

function checkSandbox(url: string, status: string): void {
  if (status !== 'ready') {
    throw new Error(
      status === 'missing'
        ? `${url} does not hold the sandboxed frame: serve pageHtml('sandbox') there`
        : `the sandboxed frame of ${url} did not start within 15 s`,
    );
  }
}

function notSandboxed(url: string): Promise<Verdict> {
  return Promise.reject(new Error(`fetchFromSandbox: ${url} was not opened with { sandboxedFrame: true }`));
}

/** EnginePage over any engine that can evaluate a function in the page (Playwright, Puppeteer, our WebDriver). */
async function evaluatorPage(
  evaluator: Evaluator,
  url: string,
  options: OpenOptions,
  close: () => Promise<void>,
  pageConsole?: ConsoleLog,
): Promise<EnginePage> {
  if (options.sandboxedFrame) {
    try {
      checkSandbox(url, await evaluator.evaluate(awaitSandbox, undefined));
    } catch (error) {
      await close().catch(() => {});
      throw error;
    }
  }
  return {
    fetch: (target, init, read) => evaluator.evaluate(runFetch, fetchArgs(target, init, read)),
    fetchFromSandbox: (target, init, read) => (options.sandboxedFrame ? evaluator.evaluate(sandboxFetch, fetchArgs(target, init, read)) : notSandboxed(url)),
    ...(pageConsole === undefined ? {} : { console: pageConsole }),
    close,
  };
}

// ---------------------------------------------------------------------------------------------
// Processes and temporary directories

/** Last-resort cleanups, run synchronously if this process exits with engines still open. */
const atExit = new Set<() => void>();
let exitHooked = false;
function onExit(cleanup: () => void): () => void {
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const fn of atExit) {
        try {
          fn();
        } catch {
          // best effort: the process is going away
        }
      }
    });
  }
  atExit.add(cleanup);
  return () => atExit.delete(cleanup);
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Signals the child's whole process group (it was spawned detached, so it leads one). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid !== undefined) signalPid(-child.pid, signal);
}

/** SIGTERM to the group, SIGKILL after 3 s; resolves once the child is gone. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (!alive(child)) {
    signalGroup(child, 'SIGKILL'); // stragglers of a leader that exited
    return;
  }
  const exited = once(child, 'exit');
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
  signalGroup(child, 'SIGKILL');
}

// The watchdog's script: it reads "g PID" lines (process groups to kill) from a pipe whose other
// end this Node process holds. "x" means the engine was closed: nothing to do. End of input
// without "x" means this process died without closing (a tap timeout ends a test file with
// SIGALRM or SIGKILL, skipping teardowns and 'exit' handlers): kill the groups, remove $1.
const WATCHDOG = `groups=
while read -r kind pid; do
  case "$kind" in
    g) groups="$groups $pid" ;;
    x) exit 0 ;;
  esac
done
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep 1
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
rm -rf -- "$1"`;

/**
 * An engine's temporary profile directory and the process groups it starts, let go of by
 * `release()` after a normal close, and otherwise reclaimed: synchronously if this process exits,
 * and by a detached watchdog (a /bin/sh reading a pipe from us) if it is killed outright.
 */
class Leash {
  readonly dir: string;
  private readonly groups = new Set<number>();
  private readonly watchdog: ChildProcess;
  private readonly forget: () => void;

  constructor(prefix: string) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.watchdog = spawn('/bin/sh', ['-c', WATCHDOG, 'engines-watchdog', this.dir], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    this.watchdog.on('error', () => {}); // without /bin/sh: the 'exit' hook still works
    this.watchdog.stdin!.on('error', () => {});
    this.watchdog.unref();
    (this.watchdog.stdin as unknown as { unref(): void }).unref();
    this.forget = onExit(() => {
      for (const pid of this.groups) signalPid(-pid, 'SIGKILL');
      rmSync(this.dir, { recursive: true, force: true });
    });
  }

  /** Kill this process's group (it must have been spawned detached) if we die first. */
  hold(pid: number | undefined): void {
    if (pid === undefined) return;
    this.groups.add(pid);
    this.watchdog.stdin!.write(`g ${pid}\n`);
  }

  /** Once the engine's processes are stopped: calls off the watchdog, removes the directory. */
  release(): void {
    this.forget();
    this.watchdog.stdin!.end('x\n');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The last few KB a child wrote, for error messages. */
function tail(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text.trim();
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------
// Chromium: playwright-core over CDP, fresh persistent profile.

async function launchChromium(started: number): Promise<Engine> {
  const { chromium: executablePath } = checkInstalled('chromium');
  // Chromium's own process is not ours to hold (Playwright has no pid for it), but it exits when
  // the pipe Playwright drives it through closes, as it does when this process dies.
  const profile = new Leash('engines-chromium-');
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile.dir, {
      executablePath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  } catch (error) {
    profile.release();
    throw error;
  }
  const browserVersion = context.browser()?.version() ?? (await promisify(execFile)(executablePath!, ['--version'])).stdout.replace(/^Chromium\s*/, '').trim();
  return {
    name: 'chromium',
    version: `Chromium ${browserVersion}`,
    launchMs: Math.round(performance.now() - started),
    open: async (url, options = {}) => {
      const page = await context.newPage();
      let pageConsole: ConsoleRecorder | undefined;
      if (options.console) {
        const recorder = new ConsoleRecorder();
        page.on('console', (message) => recorder.add({ level: message.type(), text: message.text() }));
        pageConsole = recorder;
      }
      await page.goto(url, { waitUntil: 'load' });
      return evaluatorPage(page, url, options, () => page.close(), pageConsole);
    },
    cookies: async (url) => (await context.cookies(url)).map(({ name, value, httpOnly }) => ({ name, value, httpOnly })),
    clearCookies: () => context.clearCookies(),
    close: async () => {
      try {
        await context.close();
      } finally {
        profile.release();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Firefox: puppeteer-core over WebDriver BiDi, fresh profile.

/** RFC 6265 domain- and path-match: whether a cookie would go with a request to `url`. */
function cookieFor(url: URL, cookie: { domain: string; path: string; secure: boolean }): boolean {
  const domain = cookie.domain.replace(/^\./, '').toLowerCase();
  const host = url.hostname.toLowerCase();
  if (host !== domain && !host.endsWith(`.${domain}`)) return false;
  const path = cookie.path || '/';
  const requestPath = url.pathname || '/';
  const pathMatches = requestPath === path || (requestPath.startsWith(path) && (path.endsWith('/') || requestPath[path.length] === '/'));
  return pathMatches && (!cookie.secure || url.protocol === 'https:');
}

async function launchFirefox(started: number): Promise<Engine> {
  const { 'firefox-esr': executablePath } = checkInstalled('firefox');
  const profile = new Leash('engines-firefox-');
  const versionText = promisify(execFile)(executablePath!, ['--version']).then(
    ({ stdout }) => stdout,
    () => '',
  );
  let browser: PuppeteerBrowser;
  try {
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath,
      headless: true,
      userDataDir: profile.dir,
      extraPrefsFirefox: {
        'network.captive-portal-service.enabled': false,
        'network.connectivity-service.enabled': false,
        'app.update.enabled': false,
      },
    });
  } catch (error) {
    profile.release();
    throw error;
  }
  profile.hold(browser.process()?.pid); // Puppeteer starts it detached: it leads its group
  // `Mozilla Firefox 153.7.0esr` from the binary (BiDi reports `firefox/153.7.0`, without "esr").
  const version = (await versionText).trim().replace(/^Mozilla\s+/, '') || `Firefox ${(await browser.version()).replace(/^firefox\//, '')}`;
  return {
    name: 'firefox',
    version,
    launchMs: Math.round(performance.now() - started),
    open: async (url, options = {}) => {
      const page = await browser.newPage();
      let pageConsole: ConsoleRecorder | undefined;
      if (options.console) {
        const recorder = new ConsoleRecorder();
        page.on('console', (message) => recorder.add({ level: message.type(), text: message.text() }));
        // BiDi log entries of type 'javascript' (CORS errors among them) come as 'pageerror'.
        page.on('pageerror', (error) => recorder.add({ level: 'error', text: error instanceof Error ? error.message : String(error) }));
        pageConsole = recorder;
      }
      await page.goto(url, { waitUntil: 'load' });
      return evaluatorPage(page as unknown as Evaluator, url, options, () => page.close(), pageConsole);
    },
    cookies: async (url) => {
      const target = new URL(url);
      return (await browser.cookies())
        .filter((cookie) => cookieFor(target, cookie))
        .map(({ name, value, httpOnly }) => ({ name, value, httpOnly: httpOnly === true }));
    },
    clearCookies: async () => {
      const all = await browser.cookies();
      if (all.length > 0) await browser.deleteCookie(...all);
    },
    close: async () => {
      try {
        await browser.close();
      } finally {
        profile.release();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// WebKit: MiniBrowser under WebKitWebDriver on a private Xvfb display.

/** Starts Xvfb on a display it picks itself (-displayfd); the display number. */
async function startXvfb(xvfb: ChildProcess, output: () => string): Promise<string> {
  const fd3 = xvfb.stdio[3] as NodeJS.ReadableStream;
  return new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error(`Xvfb did not report a display within 15 s: ${output()}`)), 15_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    fd3.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        clearTimeout(timer);
        resolve(text.trim());
      }
    });
    xvfb.once('exit', (code, signal) => fail(new Error(`Xvfb exited (${code ?? signal}) before reporting a display: ${output()}`)));
    xvfb.once('error', fail);
  });
}

/**
 * A page that sets nothing, on 127.0.0.1: WebDriver reads and deletes the cookies of the current
 * document only, so to see the cookies of http://HOST:P/path the engine opens
 * http://HOST:<probe>/path in a window of its own (cookies do not depend on the port).
 */
async function startProbe(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.setHeader('Cache-Control', 'no-store');
    res.end('<!doctype html><title>engines: cookie probe</title>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/**
 * The WebKit engine. WebDriver classic reads and deletes cookies per document, so cookies(url)
 * and clearCookies() work through the probe, for http://127.0.0.1 and http://localhost only:
 * clearCookies() forgets the cookies of those of the two hosts this engine has opened, fetched or
 * read cookies for (cookies of any other host are left alone).
 */
async function launchWebKit(started: number): Promise<Engine> {
  const bin = checkInstalled('webkit');
  const profile = new Leash('engines-webkit-');
  const children: ChildProcess[] = [];
  const start = (command: string, args: string[], options: SpawnOptions) => {
    const child = spawn(command, args, { ...options, detached: true });
    children.push(child);
    profile.hold(child.pid);
    return child;
  };
  let probe: Server | undefined;
  let session: WebDriverSession | undefined;

  const shutdown = async () => {
    await session?.delete().catch(() => {});
    if (probe !== undefined) {
      probe.closeAllConnections();
      probe.close();
    }
    for (const child of [...children].reverse()) await stopGroup(child);
    profile.release();
  };

  try {
    // Everything WebKit and GTK write (caches, dconf) goes into the temporary profile.
    const env = {
      ...process.env,
      HOME: profile.dir,
      XDG_CACHE_HOME: join(profile.dir, 'cache'),
      XDG_CONFIG_HOME: join(profile.dir, 'config'),
      XDG_DATA_HOME: join(profile.dir, 'data'),
      NO_AT_BRIDGE: '1',
    };
    const xvfb = start(bin.Xvfb!, ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], env });
    const display = await startXvfb(xvfb, tail(xvfb));
    probe = await startProbe();

    // The port is free when picked; another process could take it before the driver binds: retry.
    let base = '';
    for (let attempt = 1; base === ''; attempt++) {
      const port = await freePort();
      const driver = start(bin.WebKitWebDriver!, ['--host=127.0.0.1', `--port=${port}`], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...env, DISPLAY: `:${display}` },
      });
      const output = tail(driver);
      const deadline = performance.now() + 15_000;
      while (alive(driver) && performance.now() < deadline) {
        if (await driverReady(`http://127.0.0.1:${port}`)) {
          base = `http://127.0.0.1:${port}`;
          break;
        }
        await delay(25);
      }
      if (base !== '') break;
      await stopGroup(driver);
      if (attempt === 3) throw new Error(`WebKitWebDriver did not start: ${output()}`);
    }

    session = await WebDriverSession.create(base, {
      pageLoadStrategy: 'normal',
      'webkitgtk:browserOptions': { binary: bin.MiniBrowser, args: ['--automation'] },
    });
    await session.setTimeouts({ script: 60_000, pageLoad: 60_000 });
  } catch (error) {
    await shutdown();
    throw error;
  }

  const driver = session;
  const probePort = (probe.address() as AddressInfo).port;
  const version = `WebKitGTK ${String(driver.capabilities.browserVersion ?? 'unknown')}`;
  const first = await driver.windowHandle().catch(async (error: unknown) => {
    await shutdown();
    throw error;
  });
  // Windows are pooled: opening one costs about 0.3 s, and closing the session's last window would
  // end the session. A closed page's window goes back to about:blank and waits for the next open();
  // the first open() gets the window the session starts with; cookies() keeps one for the probe.
  const spare = [first];
  let current = first;
  let probeWindow: string | undefined;
  const acquire = async () => spare.pop() ?? (await driver.newWindow('window'));
  const use = async (handle: string) => {
    if (current !== handle) {
      await driver.switchToWindow(handle);
      current = handle;
    }
  };
  const useProbe = async () => {
    probeWindow ??= await acquire();
    return use(probeWindow);
  };

  // One command sequence at a time: a window switch and the command meant for it must not interleave.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };

  // Every loopback host this engine has opened, fetched or read cookies of, for clearCookies().
  const touched = new Set<string>();
  const touch = (url: string) => {
    const { hostname } = new URL(url);
    if (hostname === '127.0.0.1' || hostname === 'localhost') touched.add(hostname);
  };
  const probeUrl = (host: string, path: string) => `http://${host}:${probePort}${path}`;

  const execute = (handle: string, script: string, args: unknown[]) =>
    serial(async () => {
      await use(handle);
      return driver.executeAsync<unknown>(script, args);
    });
  // A rejection of the page function comes back as an exception here, never as a verdict.
  const callIn = async <A, R>(handle: string, fn: (arg: A) => Promise<R>, arg: A): Promise<R> => {
    const script = `const done = arguments[arguments.length - 1];
Promise.resolve(arguments[0]).then(${fn.toString()}).then((value) => done({ value }), (e) => done({ thrown: String(e && e.stack || e) }));`;
    const answer = (await execute(handle, script, [arg])) as { value: R; thrown?: string };
    if (answer.thrown !== undefined) throw new Error(`WebKit page script failed: ${answer.thrown}`);
    return answer.value;
  };

  let closed = false;
  return {
    name: 'webkit',
    version,
    launchMs: Math.round(performance.now() - started),
    open: async (url, options = {}) => {
      if (options.console) throw new Error(`WebKit engine: open(${url}, { console: true }): WebDriver classic cannot read the page's console`);
      touch(url);
      const handle = await serial(async () => {
        const window = await acquire();
        try {
          await use(window);
          await driver.navigate(url);
        } catch (error) {
          spare.push(window);
          throw error;
        }
        return window;
      });
      let pageClosed = false;
      const evaluator: Evaluator = {
        evaluate: (fn, arg) => (pageClosed ? Promise.reject(new Error(`the WebKit page of ${url} is closed`)) : callIn(handle, fn, arg)),
      };
      const page = await evaluatorPage(evaluator, url, options, () =>
        serial(async () => {
          if (closed || pageClosed) return;
          pageClosed = true;
          await use(handle);
          await driver.navigate('about:blank');
          spare.push(handle);
        }),
      );
      return {
        ...page,
        fetch: (target, init, read) => {
          touch(target);
          return page.fetch(target, init, read);
        },
        fetchFromSandbox: (target, init, read) => {
          touch(target);
          return page.fetchFromSandbox(target, init, read);
        },
      };
    },
    cookies: (url) => {
      const target = new URL(url);
      if (target.hostname !== '127.0.0.1' && target.hostname !== 'localhost') {
        return Promise.reject(new Error(`WebKit engine: cookies() reads http://127.0.0.1 and http://localhost only, not ${url}`));
      }
      touch(url);
      return serial(async () => {
        await useProbe();
        await driver.navigate(probeUrl(target.hostname, target.pathname || '/'));
        return (await driver.cookies()).map(({ name, value, httpOnly }) => ({ name, value, httpOnly: httpOnly === true }));
      });
    },
    clearCookies: () =>
      serial(async () => {
        await useProbe();
        for (const host of touched) {
          // Measured on WebKitGTK 2.50: Delete All Cookies drops every cookie of the document's
          // host, whatever its Path (the spec says: those the document would be sent). The smoke
          // test pins this with a Path=/deep cookie.
          await driver.navigate(probeUrl(host, '/'));
          await driver.deleteCookies();
        }
        await driver.navigate('about:blank');
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      // Not queued: killing the processes ends whatever command is still waiting.
      await shutdown();
    },
  };
}

// ---------------------------------------------------------------------------------------------

/**
 * Launches one engine with a fresh profile. Throws (never installs, never skips) if it is missing,
 * or older than MINIMUM_MAJOR.
 */
export async function launchEngine(name: EngineName): Promise<Engine> {
  const started = performance.now();
  let engine: Engine;
  switch (name) {
    case 'chromium':
      engine = await launchChromium(started);
      break;
    case 'firefox':
      engine = await launchFirefox(started);
      break;
    case 'webkit':
      engine = await launchWebKit(started);
      break;
    default:
      throw new Error(`unknown engine ${String(name)}; one of ${ENGINES.join(', ')}`);
  }
  if (name !== 'webkit' && majorVersion(engine.version) < MINIMUM_MAJOR[name]) {
    await engine.close();
    throw new Error(`${engine.version} is older than ${MINIMUM_MAJOR[name]}, the oldest the browser suites are run with. Upgrade it: ${INSTALL[name]}`);
  }
  return engine;
}
