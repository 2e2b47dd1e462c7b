/**
 * Faults (a hanging origin function, a handler failing after setCookie, clients that walk away)
 * and input size. Nothing here is timed against a bound a busy machine could reach: waits are
 * checked by what happened (the timer's log line, the calls made), and the cost of a header
 * list by the work counted (test/helpers/work-count.ts), not by the clock.
 */
import { connect } from 'node:net';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';

import t from 'tap';

import { CorsModule, CorsService, createCors } from '@lib/cors';
import { controller, RequestContext, restRootModule, route } from '@lib/rest';

import { serveApplication } from '../../helpers/app.js';
import { fakeExchange } from '../../helpers/fake-http.js';
import { captureLogger, corsHeadersOf, echoApp, serve } from '../../helpers/http.js';
import { countRegExpWork } from '../../helpers/work-count.js';

// Not hung is checked by what happened, not by how long it took: both requests are answered,
// the function was asked once for each, the timer's own log line was written. A hang still has
// to end somewhere: HUNG_AFTER is 200 times originTimeout, which no load stretches a 50 ms timer
// to, and short enough to name this test rather than the file's timeout.
const HUNG_AFTER = 10_000;

t.test('an origin function that never settles is denied after originTimeout, with one log line', async (t) => {
  const { logger, errors } = captureLogger();
  let calls = 0;
  const never = () => {
    calls++;
    return new Promise<boolean>(() => {});
  };
  const cors = createCors({ origin: never, originTimeout: 50 }, { logger }).route('GET', '/');
  const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
  t.teardown(server.close);
  const started = performance.now();
  const both = Promise.all([
    server.send('GET', '/', { Origin: 'https://a.test' }),
    server.send('OPTIONS', '/', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'GET' }),
  ]);
  let guard: NodeJS.Timeout | undefined;
  const answers = await Promise.race([both, new Promise<undefined>((resolve) => (guard = setTimeout(() => resolve(undefined), HUNG_AFTER)))]);
  clearTimeout(guard);
  if (answers === undefined) {
    t.fail(`no answer within ${HUNG_AFTER} ms, 200 times originTimeout: the requests hang (the origin function was asked ${calls} times)`);
    return;
  }
  const [actual, preflight] = answers;
  // Answered, each after asking the function once.
  t.equal(calls, 2, 'the origin function was asked once per request');
  // A lower bound only (load can lengthen a wait, never shorten it): the answer waited for the timer.
  const waited = performance.now() - started;
  t.ok(waited >= 40, `answered after the timer, not before it (${waited.toFixed(0)} ms)`);
  t.equal(actual.body, 'app saw GET /');
  t.notOk('access-control-allow-origin' in actual.headers);
  t.equal(preflight.status, 204);
  t.notOk('access-control-allow-origin' in preflight.headers);
  // The timer fired, once per request: only its callback writes this line, one for each fault.
  t.equal(errors.length, 2);
  for (const line of errors) t.match(line, /did not settle within 50 ms \(originTimeout\); the request was denied/);
  t.throws(() => createCors({ originTimeout: 0 }), { message: /CorsOptions\.originTimeout = 0 is not a whole number of milliseconds from 1 to 60000/ });
});

t.test('a handler that throws after setCookie: 500 with the CORS grant and without the cookie', async (t) => {
  @controller()
  class Login {
    constructor(private readonly cors: CorsService) {}
    @route('POST', 'login')
    login(_ctx: RequestContext) {
      this.cors.setCookie('session', 'half-done');
      throw new Error('database down after the cookie');
    }
    @route('GET', 'ok')
    ok() {
      return 'ok';
    }
  }
  @restRootModule({ imports: [CorsModule.withOpts({ origin: ['https://a.test', 'https://b.test'] })], controllers: [Login] })
  class App {}
  const server = await serveApplication(App, { logger: { error: () => {} } });
  t.teardown(server.close);
  const failed = await server.send('POST', '/login', { Origin: 'https://a.test' });
  t.equal(failed.status, 500);
  t.notOk('set-cookie' in failed.headers, 'the half-done login leaves no cookie');
  t.equal(failed.headers['access-control-allow-origin'], 'https://a.test', 'the grant set before the handler stays whole');
  t.equal((await server.send('GET', '/ok', { Origin: 'https://b.test' })).body, 'ok');
});

t.test('clients that abort mid-request or mid-response leave the server serving', async (t) => {
  @controller()
  class Slow {
    @route('GET', 'slow')
    async slow(ctx: RequestContext) {
      ctx.rawRes.write('first part ');
      await new Promise((resolve) => setTimeout(resolve, 50));
      ctx.rawRes.end('second part');
    }
    @route('POST', 'upload')
    upload(ctx: RequestContext) {
      ctx.rawReq.resume();
      ctx.rawReq.on('end', () => ctx.send('received'));
    }
  }
  @restRootModule({ imports: [CorsModule.withOpts({ origin: ['https://a.test', 'https://b.test'] })], controllers: [Slow] })
  class App {}
  const server = await serveApplication(App, { logger: { error: () => {} } });
  t.teardown(server.close);
  const port = Number(new URL(server.origin).port);
  for (const raw of [
    'GET /slow HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\r\n\r\n',
    'POST /upload HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\r\nContent-Length: 100000\r\n\r\npartial body',
    'OPTIONS /slow HTTP/1.1\r\nHost: x\r\nOrigin: https://a.test\r\nAccess-Control-Req',
  ]) {
    for (let i = 0; i < 20; i++) {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write(raw);
      await new Promise((resolve) => setTimeout(resolve, i % 3 === 0 ? 0 : 5));
      socket.destroy();
    }
  }
  const after = await server.send('GET', '/slow', { Origin: 'https://b.test' });
  t.equal(after.body, 'first part second part');
  t.same(corsHeadersOf(after), { 'access-control-allow-origin': 'https://b.test', vary: 'Origin' }, 'a whole policy on the next response');
});

// The cap of the contract (docs/CONTRACT.md, section 4): a longer list is refused unread.
const MAX_LIST = 4096;
// Steps of the backtracking replay per character of the list read. The pattern in use takes at
// most 12 (a greedy run of 4 KiB given back a character at a time, each time trying the rest of
// the pattern); one that backtracks quadratically takes thousands a character of a 4 KiB list
// (OWS written twice: 10,000 on the spaces below), and one that backtracks catastrophically
// never finishes: the replay stops any run at this budget, before the engine sees it.
const STEPS_PER_CHARACTER = 32;

t.test('request-header lists of any size are judged in work linear in their size, never reflected unvalidated', async (t) => {
  const cors = createCors().route('PUT', '/');
  const cases: Record<string, string> = {
    'one name': 'x-one',
    '64 names': Array.from({ length: 64 }, (_, i) => `x-${i}`).join(', '),
    '10,000 names': Array.from({ length: 10_000 }, (_, i) => `x-${i}`).join(','),
    '1 MB value': `x-${'a'.repeat(1 << 20)}`,
    'too many names, near 4 KiB': `${'a,'.repeat(2040)}a@`,
    '64 long names, the last one bad': `${Array.from({ length: 63 }, (_, i) => `x-${'h'.repeat(58)}${i}`).join(', ')}, x-bad@`,
    'one name of 4 KiB, then a bad byte': `${'h'.repeat(MAX_LIST - 1)}@`,
    'commas only': ','.repeat(4000),
    'spaces then a bad byte': `${' '.repeat(4000)}\u0001`,
  };
  // Every regex run of one preflight, each replayed step by step (limited to a linear budget, so
  // a pattern that explodes is stopped and reported instead of holding the test).
  const judge = (list: string) => {
    const exchange = fakeExchange('OPTIONS', '/', { Origin: 'https://a.test', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': list });
    const work = countRegExpWork(
      () => cors.handle(exchange.req, exchange.res, () => {}),
      (input) => STEPS_PER_CHARACTER * (input.length + 1) + 1000,
    );
    const read = work.runs.reduce((sum, run) => sum + run.input.length, 0);
    const steps = work.runs.reduce((sum, run) => sum + run.steps, 0);
    return { exchange, work, read, steps };
  };
  judge('x-warm-up');
  // What a preflight costs besides its list (the origin's checks, say), measured the same way,
  // on a list no case sends: a list asked for again reuses the answer checked the time before.
  const one = judge('x-besides');
  const besides = one.work.runs.filter((run) => run.input !== 'x-besides');
  const overhead = { read: besides.reduce((sum, run) => sum + run.input.length, 0), steps: besides.reduce((sum, run) => sum + run.steps, 0) };
  for (const [name, list] of Object.entries(cases)) {
    const { exchange, work, read, steps } = judge(list);
    const valid = name === 'one name' || name === '64 names';
    t.equal(exchange.headers.get('access-control-allow-headers'), valid ? list : undefined, `${name}: reflected only when valid`);
    t.same(work.problems, [], `${name}: every regex run counted, none over ${STEPS_PER_CHARACTER} steps a character`);
    // Bounded: no regex reads more of the list than the cap, whatever its size.
    const ofList = read - overhead.read;
    t.ok(ofList <= Math.min(list.length, MAX_LIST), `${name}: regexes read ${ofList} characters of a list of ${list.length}`);
    if (list.length <= MAX_LIST)
      t.ok(
        work.runs.some((run) => run.input === list),
        `${name}: the list itself went through a regex, whose work is counted here`,
      );
    // Linear: the steps spent on the list stay within a constant per character read.
    const spent = steps - overhead.steps;
    t.ok(
      spent <= STEPS_PER_CHARACTER * ofList,
      `${name}: ${spent} steps for the ${ofList} characters read${ofList > 0 ? ` (${(spent / ofList).toFixed(1)} a character)` : ''}`,
    );
  }
});

t.test("an origin function in the cors package's callback form is named as such, with our signature", async (t) => {
  const forms: Record<string, (origin: string, callback: (error: Error | null, allow?: boolean) => void) => void> = {
    'calls back at once': (_origin, callback) => callback(null, true),
    // (Its later callback(...) would throw in a timer of the user's own, out of anyone's reach.)
    'would call back later, returns nothing': (_origin, _callback) => {},
  };
  for (const [name, form] of Object.entries(forms)) {
    const { logger, errors } = captureLogger();
    const cors = createCors({ origin: form as never }, { logger }).route('GET', '/');
    const server = await serve((req, res) => cors.handle(req, res, () => echoApp(req, res)));
    const answer = await server.send('GET', '/', { Origin: 'https://a.test' });
    await server.close();
    t.notOk('access-control-allow-origin' in answer.headers, `${name}: denied, never a 500`);
    t.equal(answer.status, 200);
    t.equal(errors.length, 1);
    t.match(
      errors[0],
      /this looks like the cors package's callback form \(origin, callback\), but here the second argument is the request\. Return a boolean or a Promise<boolean> instead/,
      name,
    );
  }
  const { logger, errors } = captureLogger();
  const ours = createCors({ origin: (origin: string, req) => (req.headers.host === undefined ? 'yes' : origin) as never }, { logger }).route('GET', '/');
  const server = await serve((req, res) => ours.handle(req, res, () => echoApp(req, res)));
  await server.send('GET', '/', { Origin: 'https://a.test' });
  await server.close();
  t.match(errors[0], /returned "https:\/\/a\.test", not a boolean; the request was denied/);
  t.notMatch(errors[0], /callback form/, 'a wrong answer of our own form is not called the cors form');
});
