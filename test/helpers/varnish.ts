import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { accepting, freePort } from './ports.js';

export const VARNISHD = '/usr/sbin/varnishd';
export const VARNISH_INSTALL = 'apt-get install -y --no-install-recommends varnish';

export interface Varnish {
  readonly origin: string;
  /** The varnishd version line, e.g. "varnish-7.1.1". */
  readonly version: string;
  close(): Promise<void>;
}

/**
 * A private Varnish on 127.0.0.1 with its built-in configuration, caching `backend`. Debian's
 * package, installed by scripts/test-tools.sh before tap runs: missing, it is an error that says
 * the command, never a skip.
 */
export async function startVarnish(backendPort: number): Promise<Varnish> {
  if (!existsSync(VARNISHD)) throw new Error(`The shared-cache suite needs Debian's Varnish. Install it with: sudo ${VARNISH_INSTALL}`);
  const port = await freePort();
  const workdir = mkdtempSync(join(tmpdir(), 'cors-varnish-'));
  // -F: foreground; -T none: no admin port; -j none: no privilege separation, so no varnish user is needed.
  const child = spawn(
    VARNISHD,
    ['-F', '-a', `127.0.0.1:${port}`, '-b', `127.0.0.1:${backendPort}`, '-n', workdir, '-s', 'malloc,16m', '-T', 'none', '-j', 'none'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(workdir, { recursive: true, force: true });
  };
  try {
    await accepting(port, { gone: () => (child.exitCode === null ? undefined : new Error(`varnishd exited with ${child.exitCode}:\n${output}`)) });
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin: `http://127.0.0.1:${port}`, version: /varnish-[0-9.]+/.exec(output)?.[0] ?? 'varnish', close: stop };
}
