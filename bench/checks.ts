/**
 * The checks every server passes before it is measured: a server that answers fast and wrong is
 * not measured. Each scenario has its own check (scenarios.ts); a server built to answer exactly
 * as another (`answersLike`) is also compared with it, route by route.
 */
import { startServer } from './child.js';
import { PATH, type Scenario, type Server } from './scenarios.js';
import { ALLOWED_ORIGIN, ROUTES } from './servers/policy.js';

/** `undefined` when the server at `url` answers `scenario` correctly, else what is wrong. */
export async function verdict(url: string, scenario: Scenario): Promise<string | undefined> {
  const response = await fetch(url + PATH, { method: scenario.method, headers: scenario.headers });
  return scenario.check(response, await response.text());
}

/** Headers that differ between two correct answers: the time, and the connection's own. */
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive']);

interface Probe {
  what: string;
  method: string;
  path: string;
  headers: Record<string, string>;
}

/**
 * Every route of ROUTES (`:id` as 42) in every form a browser or a client sends it: preflight,
 * actual request with the allowed origin, with a refused one and without any, plain OPTIONS;
 * a preflight for a method the path does not have; and a path no server has.
 */
function probes(): Probe[] {
  const list: Probe[] = [];
  const paths = new Map<string, string[]>();
  for (const [method, route] of ROUTES) {
    const path = route.replace(/:\w+/g, '42');
    paths.set(path, [...(paths.get(path) ?? []), method]);
    const preflight = { 'access-control-request-method': method, 'access-control-request-headers': 'content-type,x-request-id' };
    list.push(
      { what: `preflight for ${method}`, method: 'OPTIONS', path, headers: { origin: ALLOWED_ORIGIN, ...preflight } },
      { what: `refused preflight for ${method}`, method: 'OPTIONS', path, headers: { origin: 'https://evil.example', ...preflight } },
      { what: 'with Origin', method, path, headers: { origin: ALLOWED_ORIGIN } },
      { what: 'with a refused Origin', method, path, headers: { origin: 'https://evil.example' } },
      { what: 'without Origin', method, path, headers: {} },
    );
  }
  for (const path of paths.keys()) {
    list.push(
      { what: 'plain OPTIONS', method: 'OPTIONS', path, headers: {} },
      { what: 'preflight for DELETE', method: 'OPTIONS', path, headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'DELETE' } },
    );
  }
  list.push({ what: 'on no route', method: 'GET', path: '/nowhere/42', headers: { origin: ALLOWED_ORIGIN } });
  return list;
}

async function answer(url: string, probe: Probe): Promise<string> {
  const response = await fetch(url + probe.path, { method: probe.method, headers: probe.headers });
  const headers = [...response.headers].filter(([name]) => !PER_CONNECTION.has(name)).map(([name, value]) => `${name}: ${value}`);
  return [String(response.status), ...headers.sort(), await response.text()].join('\n');
}

/** `undefined` when the servers at `url` and `referenceUrl` answer every probe alike, else the first difference. */
async function differenceFrom(url: string, referenceUrl: string): Promise<string | undefined> {
  for (const probe of probes()) {
    const [got, expected] = await Promise.all([answer(url, probe), answer(referenceUrl, probe)]);
    if (got !== expected) return `${probe.method} ${probe.path} ${probe.what}: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`;
  }
  return undefined;
}

/**
 * Compares every server of `list` that has an `answersLike` with it (both run without load,
 * in plain node, then stop). Returns what is wrong by server name; a server named there is
 * not measured.
 */
export async function unlikeAnswers(list: readonly Server[]): Promise<Map<string, string>> {
  const wrong = new Map<string, string>();
  for (const server of list) {
    if (server.answersLike === undefined) continue;
    const [running, reference] = await Promise.all([startServer(server.entry), startServer(server.answersLike.entry)]);
    try {
      const difference = await differenceFrom(running.url, reference.url);
      if (difference !== undefined) wrong.set(server.name, `answers unlike ${server.answersLike.name}: ${difference}`);
    } finally {
      running.child.kill();
      reference.child.kill();
    }
  }
  return wrong;
}
