/**
 * originCache: an origin function's answers kept by origin, bounded in size and time, never a
 * fault or a timeout. Counted by calls to the function, not by time, but for the one test of
 * expiry, where only a longer wait than asked can happen.
 */
import t from 'tap';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { captureLogger, echoApp, serve } from '../../helpers/http.js';

async function serveWith(options: CorsOptions) {
  const { logger, errors } = captureLogger();
  const cors = createCors(options, { logger }).route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  const ask = async (origin: string) => (await server.send('GET', '/', { Origin: origin })).headers['access-control-allow-origin'];
  return { server, ask, errors };
}

t.test('each origin is asked once while its answer is kept; both answers are kept', async (t) => {
  const asked: string[] = [];
  const { server, ask } = await serveWith({
    origin: async (origin: string) => {
      asked.push(origin);
      return origin.endsWith('.trusted.test');
    },
    originCache: { max: 100, ttl: 600_000 },
  });
  t.teardown(server.close);
  for (let i = 0; i < 3; i++) {
    t.equal(await ask('https://a.trusted.test'), 'https://a.trusted.test');
    t.equal(await ask('https://evil.test'), undefined);
  }
  t.same(asked, ['https://a.trusted.test', 'https://evil.test'], 'one lookup per origin');
});

t.test('an origin a browser would never send is refused without asking the function, and never kept', async (t) => {
  const asked: string[] = [];
  const { server, ask } = await serveWith({
    origin: (origin: string) => {
      asked.push(origin);
      return true;
    },
    originCache: { max: 100, ttl: 600_000 },
  });
  t.teardown(server.close);
  for (const malformed of ['https://A.test', 'https://a.test/', 'https://a.test:443', 'https://a.test, https://b.test', 'null']) {
    for (let i = 0; i < 2; i++) t.equal(await ask(malformed), undefined, `${malformed}: refused`);
  }
  t.same(asked, [], 'the function saw none of them');
  t.equal(await ask('https://a.test'), 'https://a.test');
  t.same(asked, ['https://a.test']);
});

t.test('faults, timeouts and non-boolean answers are never kept', async (t) => {
  let calls = 0;
  const { server, ask, errors } = await serveWith({
    origin: (async (origin: string) => {
      calls++;
      if (calls === 1) throw new Error('database down');
      if (calls === 2) return new Promise<boolean>(() => {}); // hangs past originTimeout
      if (calls === 3) return 'yes';
      return origin === 'https://a.test';
    }) as never,
    originTimeout: 50,
    originCache: { max: 100, ttl: 600_000 },
  });
  t.teardown(server.close);
  t.equal(await ask('https://a.test'), undefined, 'a throw denies');
  t.equal(await ask('https://a.test'), undefined, 'a timeout denies');
  t.equal(await ask('https://a.test'), undefined, 'a non-boolean denies');
  t.equal(await ask('https://a.test'), 'https://a.test', 'the function is asked again each time');
  t.equal(await ask('https://a.test'), 'https://a.test');
  t.equal(calls, 4, 'and its first real answer is kept');
  t.equal(errors.length, 3, 'every fault is logged, the timeout too');
});

t.test('at most max origins, the least recently used evicted first', async (t) => {
  const asked: string[] = [];
  const { server, ask } = await serveWith({
    origin: (origin: string) => {
      asked.push(origin.slice(8));
      return true;
    },
    originCache: { max: 2, ttl: 600_000 },
  });
  t.teardown(server.close);
  for (const origin of ['a', 'b', 'a', 'c', 'a', 'b']) await ask(`https://${origin}.test`);
  // a, b kept; a used again; c evicts b (least recently used); a still kept; b asked again (evicting c).
  t.same(asked, ['a.test', 'b.test', 'c.test', 'b.test']);
});

t.test('an answer older than ttl is asked again', async (t) => {
  let calls = 0;
  const { server, ask } = await serveWith({
    origin: () => {
      calls++;
      return true;
    },
    originCache: { max: 10, ttl: 20 },
  });
  t.teardown(server.close);
  await ask('https://a.test');
  await new Promise((resolve) => setTimeout(resolve, 60));
  await ask('https://a.test');
  t.equal(calls, 2);
});

t.test('originCache is checked at start-up', async (t) => {
  t.throws(() => createCors({ origin: ['https://a.test', 'https://b.test'], originCache: { max: 10, ttl: 1000 } }), {
    message: /CorsOptions\.originCache = \{ max, ttl \} keeps the answers of an origin function, and origin is not one/,
  });
  t.throws(() => createCors({ origin: () => true, originCache: { max: 0, ttl: 1000 } }), {
    message: /CorsOptions\.originCache\.max = 0 is not a whole number from 1 to 1000000/,
  });
  t.throws(() => createCors({ origin: () => true, originCache: { max: 10, ttl: -1 } }), {
    message: /CorsOptions\.originCache\.ttl = -1 is not a whole number of milliseconds/,
  });
  t.throws(() => createCors({ origin: () => true, originCache: 'yes' as never }), { message: /CorsOptions\.originCache = "yes" is not an object/ });
  t.doesNotThrow(() => createCors({ origin: () => true, originCache: {} as never }), 'defaults: 1,000 origins, a minute');
});
