/** A benchmarked server in its own child process, and the probes it answers (see servers/policy.ts). */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface Running {
  child: ChildProcess;
  url: string;
}

/**
 * Starts `entry` with --expose-gc (for memory probes after a full collection); resolves once it
 * listens. `wrapper` runs node under another program (valgrind), which keeps the IPC channel.
 */
export async function startServer(entry: URL, env: Record<string, string> = {}, wrapper: readonly string[] = []): Promise<Running> {
  const [execPath = process.execPath, ...wrapperArgs] = wrapper;
  const execArgv = wrapper.length === 0 ? ['--expose-gc'] : [...wrapperArgs, process.execPath, '--expose-gc'];
  const child = fork(fileURLToPath(entry), { stdio: 'inherit', execPath, execArgv, env: { ...process.env, ...env } });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { child, url: `http://127.0.0.1:${message.port}` };
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
