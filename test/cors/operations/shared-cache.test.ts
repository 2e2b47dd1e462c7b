/**
 * Rule A (docs/CONTRACT.md, section 3): every answer is the same for every origin, or says
 * `Vary: Origin`. Shown twice: request by request against the server, and end to end through a
 * real shared cache (Debian's Varnish with its built-in configuration) filled by a request
 * without `Origin`, or from another origin, before the application's own request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import t from 'tap';

import { createCors } from '@lib/cors/standalone';

import { corsHeadersOf, echoApp, fetchAnswer, serve, type Answer } from '../../helpers/http.js';
import { POLICY_CASES, requestOfRow } from '../../helpers/policy-kinds.js';
import { startVarnish } from '../../helpers/varnish.js';

const quiet = { warn: () => {}, error: () => {} };

/** The application: cacheable by a shared cache for a minute. */
function cacheableApp(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Cache-Control', 'public, max-age=60');
  echoApp(req, res);
}

function varies(answer: Answer): boolean {
  return String(answer.headers.vary ?? '')
    .split(',')
    .some((field) => field.trim().toLowerCase() === 'origin');
}

function cacheView(answer: Answer): unknown {
  return { status: answer.status, body: answer.body, cors: corsHeadersOf(answer) };
}

for (const policy of POLICY_CASES) {
  t.test(`${policy.name}: every row answers the same to every origin, or varies on Origin`, async (t) => {
    const cors = createCors(policy.options, { logger: quiet }).route(['GET', 'POST'], '/users/:id');
    const server = await serve((req, res) => cors.handle(req, res, () => cacheableApp(req, res)));
    t.teardown(server.close);
    for (const row of [2, 3, 4] as const) {
      const answers: Answer[] = [];
      for (const origin of [undefined, policy.allowed, policy.denied, 'https://third.test']) {
        if (origin === undefined && row === 4) continue; // a preflight always has an Origin
        const { method, headers } = requestOfRow(row, origin);
        answers.push(await server.send(method, '/users/7', headers));
      }
      const same = answers.every((answer) => JSON.stringify(cacheView(answer)) === JSON.stringify(cacheView(answers[0]!)));
      t.ok(same || answers.every(varies), `row ${row}: ${same ? 'one answer for every origin' : 'Vary: Origin on every answer'}`);
      if (policy.kind === 'dynamic') t.ok(answers.every(varies), `row ${row}: an origin-dependent policy always varies`);
      else t.ok(same, `row ${row}: a ${policy.kind} policy gives one answer`);
    }
  });
}

t.test('through Varnish: the application gets what the server would have sent it, whoever filled the cache', async (t) => {
  let requestsReachingServer = 0;
  // One engine per policy, each under its own path prefix, behind one backend.
  const engines = POLICY_CASES.map((policy, index) => createCors(policy.options, { logger: quiet }).route(['GET', 'POST'], `/p${index}/users/:id`));
  const backend = await serve((req, res) => {
    requestsReachingServer++;
    const index = Number(/^\/p([0-9]+)\//.exec(req.url ?? '')?.[1] ?? 0);
    engines[index]!.handle(req, res, () => cacheableApp(req, res));
  });
  t.teardown(backend.close);
  const varnish = await startVarnish(Number(new URL(backend.origin).port));
  t.teardown(varnish.close);
  t.comment(`through ${varnish.version}`);

  let unique = 0;
  for (const [index, policy] of POLICY_CASES.entries()) {
    if (policy.allowed === undefined) continue;
    for (const filler of [undefined, policy.denied ?? 'https://other.test']) {
      const path = `/p${index}/users/7?case=${unique++}`;
      const application = { Origin: policy.allowed };
      const filled = await fetchAnswer(varnish.origin + path, 'GET', filler === undefined ? {} : { Origin: filler });
      t.equal(filled.status, 200);
      const before = requestsReachingServer;
      const throughCache = await fetchAnswer(varnish.origin + path, 'GET', application);
      const served = requestsReachingServer > before;
      const direct = await fetchAnswer(backend.origin + path, 'GET', application);
      const label = `${policy.name}, cache filled ${filler === undefined ? 'without Origin' : `from ${filler}`}`;
      t.same(cacheView(throughCache), cacheView(direct), `${label}: the application's answer is the server's own`);
      // The cache did its part: a constant policy's answer was reused, a dynamic one was fetched anew.
      t.equal(served, policy.kind === 'dynamic', `${label}: ${policy.kind === 'dynamic' ? 'a new variant was fetched' : 'answered from the cache'}`);
    }
  }
});
