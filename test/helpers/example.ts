import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import type { Test } from 'tap';

/**
 * Starts a compiled example in its own process on a free port (PORT=0) and returns the URL it
 * printed; the process is stopped when the test ends.
 */
export async function startExample(t: Test, name: string): Promise<string> {
  const entry = fileURLToPath(new URL(`../../examples/${name}/server.js`, import.meta.url));
  const child = spawn(process.execPath, [entry], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill();
      await once(child, 'exit');
    }
  });
  // Read with a listener, never by breaking out of an async iterator: that would destroy the
  // pipe, and the example's next console.log would die of EPIPE.
  let output = '';
  child.stdout.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const url = /listening on (http:\/\/\S+)\n/.exec(output)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.on('exit', () => reject(new Error(`example ${name} exited without listening:\n${output}`)));
  });
}
