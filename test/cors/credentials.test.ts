/**
 * setCorsCookie serializes with cookie@2, whose behaviour changed from 1.x: values are encoded
 * only where needed, and its error texts are new. Pinned here, over real sockets, so an upgrade
 * that changes what browsers receive is noticed.
 */
import t from 'tap';

import { createCors, setCorsCookie } from '@lib/cors/standalone';

import { serve } from '../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };

t.test('cookie@2: values keep what needs no encoding; spaces and semicolons are encoded', async (t) => {
  const cors = createCors({ origin: ['https://app.test', 'https://b.test'] }).route('POST', '/login', { allowCredentials: true });
  const server = await serve((req, res) =>
    cors.handle(req, res, () => {
      setCorsCookie(req, res, 'path', 'a/b', {}, quiet);
      setCorsCookie(req, res, 'spaced', 'x y;z', { sameSite: 'strict', secure: true }, quiet);
      res.end();
    }),
  );
  t.teardown(server.close);
  const answer = await server.send('POST', '/login', { Origin: 'https://app.test' });
  t.same(
    answer.headers['set-cookie'],
    ['path=a/b; Path=/; HttpOnly', 'spaced=x%20y%3Bz; Path=/; HttpOnly; Secure; SameSite=Strict'],
    "1.x wrote a%2Fb; 2.x leaves '/' as it is",
  );
  t.equal(answer.headers['access-control-allow-credentials'], 'true');
});

t.test("cookie@2's error for a bad name reaches the caller, with our fix", async (t) => {
  const cors = createCors({ origin: ['https://app.test', 'https://b.test'] }).route('POST', '/login', { allowCredentials: true });
  let thrown: unknown;
  const server = await serve((req, res) =>
    cors.handle(req, res, () => {
      try {
        setCorsCookie(req, res, 'bad name', 'x', {}, quiet);
      } catch (error) {
        thrown = error;
      }
      res.end();
    }),
  );
  t.teardown(server.close);
  const answer = await server.send('POST', '/login', { Origin: 'https://app.test' });
  t.notOk('set-cookie' in answer.headers, 'nothing written');
  t.type(thrown, TypeError);
  t.match((thrown as Error).message, /^setCookie\("bad name", \.\.\.\): cookie name is invalid: bad name\. Cookie names are RFC 6265 tokens/);
});
