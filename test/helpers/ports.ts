/** Loopback ports for the servers the suites start in processes of their own. */
import { once } from 'node:events';
import { connect, createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on now (the OS's pick, released at once). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Polls every 50 ms until something accepts connections on 127.0.0.1:`port`. Fails after
 * `timeout` ms, or as soon as `gone()` gives an error (the process meant to listen has exited).
 */
export async function accepting(port: number, { timeout = 20_000, gone }: { timeout?: number; gone?: () => Error | undefined } = {}): Promise<void> {
  const until = Date.now() + timeout;
  for (;;) {
    const exited = gone?.();
    if (exited !== undefined) throw exited;
    const socket = connect(port, '127.0.0.1');
    const connected = await new Promise<boolean>((resolve) => {
      socket.once('connect', () => resolve(true));
      socket.once('error', () => resolve(false));
    });
    socket.destroy();
    if (connected) return;
    if (Date.now() > until) throw new Error(`nothing accepts connections on 127.0.0.1:${port} after ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
