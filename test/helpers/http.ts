import { once } from 'node:events';
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Request headers; an array value is sent as that many header lines. */
export type RequestHeaders = Record<string, string | string[]>;

export interface TestServer {
  readonly origin: string;
  send(method: string, path: string, headers?: RequestHeaders): Promise<Answer>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 with an ephemeral port. */
export async function serve(listener: RequestListener, options: ServerOptions = {}): Promise<TestServer> {
  const server = createServer(options, listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    send: (method, path, headers = {}) => send(port, method, path, headers),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function send(port: number, method: string, path: string, headers: RequestHeaders): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false });
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.end();
  });
}

/** A request with fetch(), as a page would send it (one value per header). */
export async function fetchAnswer(url: string, method: string, headers: RequestHeaders = {}): Promise<Answer> {
  const response = await fetch(url, { method, headers: headers as Record<string, string> });
  const answerHeaders: IncomingHttpHeaders = Object.fromEntries(response.headers);
  // Iterating Headers keeps only the last Set-Cookie: read them all.
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) answerHeaders['set-cookie'] = cookies;
  return { status: response.status, headers: answerHeaders, body: await response.text() };
}

/** The headers this project is responsible for, for exact comparison (absent ones stay absent). */
export function corsHeadersOf(answer: Answer): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (name.startsWith('access-control-') || name === 'vary' || name === 'allow') picked[name] = String(value);
  }
  return picked;
}

/** A stand-in application: echoes what reached it, so tests can tell `next()` ran. */
export function echoApp(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('X-Total', '42');
  res.setHeader('Content-Type', 'text/plain');
  res.end(`app saw ${req.method} ${req.url}`);
}

export interface CapturedLogger {
  logger: { warn(message: string): void; error(message: string): void };
  warnings: string[];
  errors: string[];
}

export function captureLogger(): CapturedLogger {
  const warnings: string[] = [];
  const errors: string[] = [];
  return { logger: { warn: (m) => warnings.push(m), error: (m) => errors.push(m) }, warnings, errors };
}

/** Options deep-frozen, to prove the engine never mutates what it is given. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !(value instanceof RegExp)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
