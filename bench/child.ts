/** A benchmarked server in its own child process, and the probes it answers (see servers/policy.ts). */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface Running {
  child: ChildProcess;
  url: string;
  /** When the server's own code started (its imports loaded) and when it listened, in ms since its process started. */
  importedAt: number;
  listeningAt: number;
  /** With `keepStderr`: the first error line the child wrote (a crash's, or one its framework logged), shortened. */
  firstError(): string | undefined;
}

export interface StartOptions {
  /** Stops the child and rejects when it has not listened within this many ms. */
  limitMs?: number;
  /** Keeps the child's stderr (for firstError()) instead of passing it through. */
  keepStderr?: boolean;
  /** More node (and V8) flags for the child, after --expose-gc. */
  nodeFlags?: readonly string[];
}

/**
 * V8's young generation fixed at its default largest size (two 16 MB semi-spaces). V8 otherwise
 * grows and shrinks it with the allocation rate per wall-clock millisecond, so the same server
 * collects more or less often depending on the machine's load: RSS moved in steps of megabytes
 * in the soak, and under callgrind one server counted about 65,900 or 68,400 instructions a
 * preflight from process to process (its scavenges are 6.6% of the count, at about 430,000
 * instructions each whatever the heap holds). Every counted server and the soak's run with it.
 */
export const FIXED_YOUNG_GENERATION: readonly string[] = ['--min-semi-space-size=16', '--max-semi-space-size=16'];

/**
 * Starts `entry` with --expose-gc (for memory probes after a full collection); resolves once it
 * listens, rejects if it exits first (or outlives `limitMs`). `wrapper` runs node under another
 * program (valgrind), which keeps the IPC channel.
 */
export async function startServer(
  entry: URL,
  env: Record<string, string> = {},
  wrapper: readonly string[] = [],
  { limitMs, keepStderr = false, nodeFlags = [] }: StartOptions = {},
): Promise<Running> {
  const [execPath = process.execPath, ...wrapperArgs] = wrapper;
  const flags = ['--expose-gc', ...nodeFlags];
  const execArgv = wrapper.length === 0 ? flags : [...wrapperArgs, process.execPath, ...flags];
  const stdio = keepStderr ? (['inherit', 'inherit', 'pipe', 'ipc'] as const) : 'inherit';
  const child = fork(fileURLToPath(entry), { stdio: stdio as 'inherit', execPath, execArgv, env: { ...process.env, ...env } });
  const stderr = shortLines();
  child.stderr?.setEncoding('utf8').on('data', stderr.add);
  const firstError = () =>
    stderr
      .lines()
      .find((line) => /^\s*(?:Uncaught )?[A-Z]\w*Error\b/.test(line))
      ?.trim();
  const message = await new Promise<{ port: number; importedAt: number; listeningAt: number }>((resolve, reject) => {
    const timer =
      limitMs === undefined
        ? undefined
        : setTimeout(() => {
            child.off('exit', exited);
            child.kill('SIGKILL');
            reject(new Error(`not listening after ${limitMs / 1000} s: stopped`));
          }, limitMs);
    const exited = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`exited (${signal ?? code}) before listening${firstError() === undefined ? '' : `: ${firstError()}`}`));
    };
    child.once('exit', exited);
    child.once('message', (first: { port: number; importedAt: number; listeningAt: number }) => {
      clearTimeout(timer);
      child.off('exit', exited);
      resolve(first);
    });
  });
  return { child, url: `http://127.0.0.1:${message.port}`, importedAt: message.importedAt, listeningAt: message.listeningAt, firstError };
}

/**
 * A child's stderr as its first 100 lines, each cut to its first and last 80 characters: an error
 * line can be megabytes long (hono's route regex), and its start and end name the cause.
 */
function shortLines(): { add(chunk: string): void; lines(): string[] } {
  const done: string[] = [];
  let current = '';
  const cut = (line: string) => (line.length <= 200 ? line : `${line.slice(0, 80)} ... ${line.slice(-80)}`);
  return {
    add(chunk) {
      const parts = chunk.split('\n');
      for (const [index, part] of parts.entries()) {
        current = cut(current + part);
        if (index < parts.length - 1) {
          if (done.length < 100) done.push(current);
          current = '';
        }
      }
    },
    lines: () => [...done, current],
  };
}

export function probe(child: ChildProcess, type: 'cpu'): Promise<{ micros: number }>;
export function probe(child: ChildProcess, type: 'memory'): Promise<{ rss: number; heapUsed: number }>;
export async function probe(child: ChildProcess, type: 'cpu' | 'memory'): Promise<unknown> {
  child.send({ type });
  for (;;) {
    const [message] = (await once(child, 'message')) as [{ type?: string }];
    if (message.type === type) return message;
  }
}
