/**
 * The engine writes each answer two ways (docs/CONTRACT.md, section 3): one writeHead() of a
 * prebuilt list when nothing has touched the response, header by header when something has.
 * For every row and every policy kind, both ways give the same status, headers and body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import t from 'tap';

import { createCors, type CorsOptions } from '@lib/cors/standalone';

import { echoApp, serve, type Answer } from '../../helpers/http.js';
import { POLICY_CASES, requestOfRow } from '../../helpers/policy-kinds.js';

const quiet = { warn: () => {}, error: () => {} };

const cases = [
  ...POLICY_CASES,
  {
    name: 'status 200, private network, listed headers',
    options: { origin: ['https://a.test', 'https://b.test'], optionsSuccessStatus: 200, allowPrivateNetwork: true, allowedHeaders: ['X-Foo'] } as CorsOptions,
    allowed: 'https://a.test',
    denied: 'https://c.test',
  },
];

/** What a client can observe of an answer, but for the header the earlier middleware added. */
function observed(answer: Answer): unknown {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, 'x-earlier': _earlier, ...headers } = answer.headers;
  return { status: answer.status, body: answer.body, headers };
}

for (const policy of cases) {
  t.test(policy.name, async (t) => {
    const cors = createCors(policy.options, { logger: quiet }).route(['GET', 'POST'], '/users/:id');
    const app = (req: IncomingMessage, res: ServerResponse) => cors.handle(req, res, () => echoApp(req, res));
    const untouched = await serve(app);
    // An earlier middleware set a header: the engine can no longer write the answer in one writeHead().
    const touched = await serve((req, res) => {
      res.setHeader('X-Earlier', '1');
      app(req, res);
    });
    t.teardown(untouched.close);
    t.teardown(touched.close);
    const origins = [undefined, policy.allowed, policy.denied].filter((origin, index) => index === 0 || origin !== undefined);
    let compared = 0;
    for (const row of [1, 2, 3, 4, 5] as const) {
      for (const origin of origins) {
        const { method, headers } = requestOfRow(row, origin);
        if (row === 4 && origin !== undefined) headers['Access-Control-Request-Private-Network'] = 'true';
        const fast = await untouched.send(method, '/users/7', headers);
        const slow = await touched.send(method, '/users/7', headers);
        t.equal(slow.headers['x-earlier'], '1');
        t.same(observed(slow), observed(fast), `row ${row}, Origin ${origin ?? '(none)'}`);
        compared++;
      }
    }
    t.ok(compared >= 10);
  });
}
