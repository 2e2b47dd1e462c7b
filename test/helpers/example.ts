import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import type { Test } from 'tap';

/**
 * Starts a compiled example in its own process on a free port (PORT=0) and returns the URL it
 * printed; the process is stopped when the test ends.
 */
export async function startExample(t: Test, name: string): Promise<string> {
  return (await startExampleUntil(t, name, /listening on (http:\/\/\S+)\n/)).url;
}

/**
 * Starts a compiled example as startExample() does, and waits until it has printed all it prints
 * at start-up (its last line, "Stop it with Ctrl+C."): its URL, that output, and what it wrote
 * to standard error by then (start-up warnings).
 */
export async function startExampleOutput(t: Test, name: string, env: Record<string, string> = {}): Promise<{ url: string; output: string; errors: string }> {
  return startExampleUntil(t, name, /listening on (http:\/\/\S+)\n[\s\S]*\nStop it with Ctrl\+C\.\n/, env);
}

async function startExampleUntil(
  t: Test,
  name: string,
  until: RegExp,
  env: Record<string, string> = {},
): Promise<{ url: string; output: string; errors: string }> {
  const entry = fileURLToPath(new URL(`../../examples/${name}/server.js`, import.meta.url));
  const child = spawn(process.execPath, [entry], { env: { ...process.env, ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill();
      await once(child, 'exit');
    }
  });
  // Read with a listener, never by breaking out of an async iterator: that would destroy the
  // pipe, and the example's next console.log would die of EPIPE.
  let output = '';
  let errors = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    errors += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const url = until.exec(output)?.[1];
      if (url !== undefined) resolve({ url, output, errors });
    });
    child.on('exit', () => reject(new Error(`example ${name} exited without listening:\n${output}${errors}`)));
  });
}
