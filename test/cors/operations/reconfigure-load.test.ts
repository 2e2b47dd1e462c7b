/**
 * reconfigure() under load: each request is answered wholly under one configuration, the one it
 * started with, even when its async origin function is still pending across many swaps.
 *
 * The origin functions answer only when the test releases them (no timers), so the interleaving of
 * requests, answers and swaps is chosen by a seeded fast-check plan and is the same on every run,
 * however slow the machine. The two policies differ in every header they produce (but the echoed
 * origin and Vary, which depend on the request alone), so a mix of the two cannot pass for either.
 */
import { once } from 'node:events';
import { Agent, createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import express from 'express';
import fc from 'fast-check';
import Fastify from 'fastify';
import t from 'tap';

import { createCors as createExpressCors } from '@lib/cors/express';
import fastifyCors from '@lib/cors/fastify';
import { createCors as createStandaloneCors } from '@lib/cors/standalone';

const quiet = { warn: () => {}, error: () => {} };

type Tag = 'P1' | 'P2';
const other = (tag: Tag): Tag => (tag === 'P1' ? 'P2' : 'P1');

const ORIGINS = ['https://one.test', 'https://two.test', 'https://both.test', 'https://neither.test'] as const;
const ALLOWED: Record<Tag, ReadonlySet<string>> = {
  P1: new Set(['https://one.test', 'https://both.test']),
  P2: new Set(['https://two.test', 'https://both.test']),
};

/** Names each request, so that the origin function can tell the test which request asked it. */
const ID_HEADER = 'x-request-id';

/**
 * The origin functions' answers, held until the test releases them. Records which policy's
 * function each request asked: the configuration it started under.
 */
class OriginGate {
  readonly startedUnder = new Map<number, Tag>();
  /** Requests that asked more than once (an engine asking again after a swap would show here). */
  readonly askedTwice: number[] = [];
  readonly #pending = new Map<number, () => void>();
  #waiters: { count: number; resolve: () => void }[] = [];

  /** The origin function of policy `tag`. */
  originFunction(tag: Tag) {
    return (origin: string, req: { headers: IncomingHttpHeaders }): Promise<boolean> => {
      const id = Number(req.headers[ID_HEADER]);
      if (this.startedUnder.has(id)) this.askedTwice.push(id);
      this.startedUnder.set(id, tag);
      return new Promise((resolve) => {
        this.#pending.set(id, () => resolve(ALLOWED[tag].has(origin)));
        this.#waiters = this.#waiters.filter((waiter) => (this.startedUnder.size >= waiter.count ? void waiter.resolve() : true));
      });
    };
  }

  /** Resolves once `count` requests in all have asked their origin function (they have reached the engine). */
  asked(count: number): Promise<void> {
    if (this.startedUnder.size >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  /** Requests whose origin function has not answered yet, oldest first. */
  get pending(): number[] {
    return [...this.#pending.keys()];
  }

  release(id: number): void {
    const answer = this.#pending.get(id);
    this.#pending.delete(id);
    answer?.();
  }
}

/** The two policies: every header they produce differs (origin sets, credentials, exposed and allowed headers and methods, maxAge). */
function policy(tag: Tag, gate: OriginGate) {
  const common = { origin: gate.originFunction(tag), originTimeout: 60_000 };
  return tag === 'P1'
    ? { ...common, allowCredentials: true, exposedHeaders: ['X-One'], maxAge: 100, allowedHeaders: ['x-one'], allowedMethods: ['GET', 'PUT'] }
    : {
        ...common,
        allowCredentials: false,
        exposedHeaders: ['X-Two', 'X-Two-More'],
        maxAge: 200,
        allowedHeaders: ['x-two'],
        allowedMethods: ['GET', 'PUT', 'DELETE'],
      };
}

interface Kind {
  name: string;
  method: string;
  headers: (origin: string) => Record<string, string>;
}

const KINDS: readonly Kind[] = [
  { name: 'GET', method: 'GET', headers: (origin) => ({ Origin: origin }) },
  {
    name: 'preflight PUT',
    method: 'OPTIONS',
    headers: (origin) => ({ Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-one' }),
  },
];

/** A server under test: GET and PUT /load covered under P1 at the start. */
interface LoadServer {
  server: Server;
  reconfigure(tag: Tag): void;
  close(): Promise<void>;
}

interface ServerKind {
  name: string;
  /** Builds and starts listening; `track` is called before listen, to count the server's sockets. */
  start(gate: OriginGate, track: (server: Server) => void): Promise<LoadServer>;
}

async function listen(server: Server): Promise<void> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
}

async function closeNode(server: Server): Promise<void> {
  server.close();
  await once(server, 'close');
}

const SERVERS: readonly ServerKind[] = [
  {
    name: 'standalone middleware on node:http',
    async start(gate, track) {
      const cors = createStandaloneCors(policy('P1', gate), { logger: quiet }).route(['GET', 'PUT'], '/load');
      const server = createServer((req, res) => cors.handle(req, res, () => res.end('app')));
      track(server);
      await listen(server);
      return { server, reconfigure: (tag) => void cors.reconfigure(policy(tag, gate)), close: () => closeNode(server) };
    },
  },
  {
    name: 'express 5',
    async start(gate, track) {
      const app = express();
      const cors = createExpressCors(policy('P1', gate), { logger: quiet });
      app.use(cors);
      app.get('/load', (_req, res) => void res.send('app'));
      app.put('/load', (_req, res) => void res.send('app'));
      const server = createServer(app);
      track(server);
      await listen(server);
      return { server, reconfigure: (tag) => cors.reconfigure(policy(tag, gate)), close: () => closeNode(server) };
    },
  },
  {
    name: 'fastify',
    async start(gate, track) {
      const app = Fastify();
      await app.register(fastifyCors, { ...policy('P1', gate), logger: quiet });
      app.get('/load', async () => 'app');
      app.put('/load', async () => 'app');
      track(app.server);
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { server: app.server, reconfigure: (tag) => app.cors.reconfigure(policy(tag, gate)), close: () => app.close() };
    },
  },
];

interface Seen {
  status: number;
  cors: Record<string, string>;
}

function send(port: number, agent: Agent, id: number, kind: Kind, origin: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, agent, method: kind.method, path: '/load', headers: { ...kind.headers(origin), [ID_HEADER]: String(id) } });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('error', reject);
      res.on('end', () => {
        const cors: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (name.startsWith('access-control-') || name === 'vary' || name === 'allow') cors[name] = String(value);
        }
        resolve({ status: res.statusCode ?? 0, cors });
      });
    });
    req.end();
  });
}

/** One round of the plan: requests sent together, then some pending origin functions answered, then a swap. */
interface Round {
  requests: { kind: number; origin: number }[];
  /** Positions among the pending requests (modulo their number) whose origin functions answer before the swap. */
  release: number[];
  /** Wait for the released requests' responses before swapping; else their answers are written after it. */
  settle: boolean;
}

const REQUESTS_PER_ROUND = 4;
const SWAPS = 50;

const roundArbitrary: fc.Arbitrary<Round> = fc.record({
  requests: fc.array(fc.record({ kind: fc.nat({ max: KINDS.length - 1 }), origin: fc.nat({ max: ORIGINS.length - 1 }) }), {
    minLength: REQUESTS_PER_ROUND,
    maxLength: REQUESTS_PER_ROUND,
  }),
  release: fc.array(fc.nat(), { maxLength: 6 }),
  settle: fc.boolean(),
});
/** Seeded: the same plans on every run. Two plans per server: 2 x 200 requests, 2 x 50 swaps. */
const PLANS = fc.sample(fc.array(roundArbitrary, { minLength: SWAPS, maxLength: SWAPS }), { seed: 25, numRuns: 2 });

/** Equal status and exactly the same CORS headers, none more, none less. */
function sameSeen(a: Seen | undefined, b: Seen | undefined): boolean {
  if (a === undefined || b === undefined || a.status !== b.status) return false;
  const names = Object.keys(a.cors);
  return names.length === Object.keys(b.cors).length && names.every((name) => a.cors[name] === b.cors[name]);
}

const keyOf = (kind: Kind, origin: string) => `${kind.name} from ${origin}`;

for (const serverKind of SERVERS) {
  PLANS.forEach((plan, planIndex) => {
    t.test(`${serverKind.name}, plan ${planIndex + 1}: ${plan.length * REQUESTS_PER_ROUND} requests over ${SWAPS} swaps`, async (t) => {
      const gate = new OriginGate();
      let openSockets = 0;
      let connections = 0;
      let allClosed: () => void = () => {};
      const socketsClosed = new Promise<void>((resolve) => (allClosed = resolve));
      const loadServer = await serverKind.start(gate, (server) =>
        server.on('connection', (socket: Socket) => {
          openSockets++;
          connections++;
          socket.on('close', () => {
            if (--openSockets === 0) allClosed();
          });
        }),
      );
      const port = (loadServer.server.address() as AddressInfo).port;
      const agent = new Agent({ keepAlive: true });
      let nextId = 0;

      /** One request on its own, released as soon as it has asked: its policy's answer. */
      const answerAlone = async (kind: Kind, origin: string): Promise<Seen> => {
        const id = nextId++;
        const seen = send(port, agent, id, kind, origin);
        await gate.asked(nextId);
        gate.release(id);
        return seen;
      };

      // What P1 and P2 answer to each kind of request, asked of this server one request at a time.
      const expected: Record<Tag, Record<string, Seen>> = { P1: {}, P2: {} };
      let current: Tag = 'P1';
      for (const tag of ['P1', 'P2'] as const) {
        loadServer.reconfigure(tag);
        current = tag;
        for (const kind of KINDS) for (const origin of ORIGINS) expected[tag][keyOf(kind, origin)] = await answerAlone(kind, origin);
      }
      for (const kind of KINDS) {
        const one = expected.P1[keyOf(kind, 'https://both.test')]!.cors;
        const two = expected.P2[keyOf(kind, 'https://both.test')]!.cors;
        const same = Object.keys({ ...one, ...two })
          .filter((name) => one[name] === two[name])
          .sort();
        t.same(
          same,
          ['vary', 'access-control-allow-origin'].filter((name) => name in one).sort(),
          `${kind.name}: P1 and P2 share no header but Vary and the echoed origin`,
        );
        t.equal(expected.P1[keyOf(kind, 'https://one.test')]!.cors['access-control-allow-origin'], 'https://one.test', `${kind.name}: P1 grants one.test`);
        t.notOk('access-control-allow-origin' in expected.P2[keyOf(kind, 'https://one.test')]!.cors, `${kind.name}: P2 does not grant one.test`);
      }

      // The load: the plan's rounds, a swap after each.
      const sentUnder = new Map<number, Tag>();
      const requests: { id: number; key: string; answer: Promise<Seen> }[] = [];
      const answered = new Map<number, Seen>();
      /** Requests whose origin function was still pending when the configuration was swapped from under them. */
      const pendingAcrossSwap = new Set<number>();
      /** Requests whose origin function had answered just before a swap, their response written only after it. */
      const releasedBeforeSwap = new Set<number>();
      const first = nextId;
      for (const round of plan) {
        for (const { kind, origin } of round.requests) {
          const id = nextId++;
          sentUnder.set(id, current);
          const answer = send(port, agent, id, KINDS[kind]!, ORIGINS[origin]!).then((seen) => {
            answered.set(id, seen);
            return seen;
          });
          requests.push({ id, key: keyOf(KINDS[kind]!, ORIGINS[origin]!), answer });
        }
        // Every request of the round has reached the engine, under the configuration now in force.
        await gate.asked(nextId);
        const pending = gate.pending;
        const released = [...new Set(round.release.filter(() => pending.length > 0).map((position) => pending[position % pending.length]!))];
        for (const id of released) gate.release(id);
        if (round.settle) await Promise.all(released.map((id) => requests[id - first]!.answer));
        else for (const id of released) releasedBeforeSwap.add(id);
        for (const id of gate.pending) pendingAcrossSwap.add(id);
        current = other(current);
        loadServer.reconfigure(current);
      }
      for (const id of gate.pending) gate.release(id);
      await Promise.all(requests.map((sent) => sent.answer));

      t.equal(answered.size, plan.length * REQUESTS_PER_ROUND, 'every request got a response');
      t.same(gate.askedTwice, [], 'each request asked one origin function, once');
      const wrongStart = requests.filter(({ id }) => gate.startedUnder.get(id) !== sentUnder.get(id)).map(({ id }) => id);
      t.same(wrongStart, [], "each request asked the origin function of the configuration in force when it arrived (the route's table was current)");
      const notWhole = requests
        .filter(({ id, key }) => {
          const seen = answered.get(id);
          return !(sameSeen(seen, expected.P1[key]) || sameSeen(seen, expected.P2[key]));
        })
        .map(({ id, key }) => ({ id, key, seen: answered.get(id) }));
      t.same(notWhole, [], "every response's CORS headers and status are exactly P1's answer or exactly P2's");
      const notItsOwn = requests
        .filter(({ id, key }) => !sameSeen(answered.get(id), expected[gate.startedUnder.get(id)!][key]))
        .map(({ id, key }) => ({ id, key, startedUnder: gate.startedUnder.get(id), seen: answered.get(id) }));
      t.same(notItsOwn, [], 'every response is the answer of the policy whose origin function it asked');
      t.ok(
        pendingAcrossSwap.size > 0,
        `${pendingAcrossSwap.size} requests had their origin function pending across a swap (all answered under the policy they started with, above)`,
      );
      t.ok(releasedBeforeSwap.size > 0, `${releasedBeforeSwap.size} requests were answered by their origin function just before a swap, written after it`);

      agent.destroy();
      await Promise.all([loadServer.close(), openSockets === 0 ? undefined : socketsClosed]);
      t.equal(openSockets, 0, 'no socket left open once the server has closed');
      t.ok(connections > 0, 'the requests came over sockets the server counted');
    });
  });
}
