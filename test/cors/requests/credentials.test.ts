/**
 * setCorsCookie serializes with cookie 0.7, the one Express 4 and 5 depend on (2.x is ES modules
 * only, and the package is CommonJS with ES module wrappers): values are percent-encoded as
 * encodeURIComponent encodes them, and its error texts are its own (1.x's repeated the name). Pinned here, over real sockets, so an upgrade that changes what
 * browsers receive is noticed.
 */
import t from 'tap';

import { createCors, setCorsCookie } from '@lib/cors/standalone';

import { serve } from '../../helpers/http.js';

const quiet = { warn: () => {}, error: () => {} };

t.test('cookie 0.7: values are encoded as encodeURIComponent encodes them', async (t) => {
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
    ['path=a%2Fb; Path=/; HttpOnly', 'spaced=x%20y%3Bz; Path=/; HttpOnly; Secure; SameSite=Strict'],
    "'/' encoded too (2.x would leave it); any cookie parser decodes both",
  );
  t.equal(answer.headers['access-control-allow-credentials'], 'true');
});

t.test("cookie's error for a bad name reaches the caller, with our fix", async (t) => {
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
  t.match((thrown as Error).message, /^setCookie\("bad name", \.\.\.\): argument name is invalid\. Cookie names are RFC 6265 tokens/);
});
