/** `npm run example -- hello` serves its two controllers. */
import t from 'tap';

import { startExample } from '../helpers/example.js';

const url = await startExample(t, 'hello');

t.test('a controller with RequestContext and a service injected through its constructor', async (t) => {
  const answer = await fetch(`${url}/hello/Ada`);
  t.equal(answer.status, 200);
  t.equal(await answer.text(), 'Hello, Ada!');
});

t.test('a second controller, and the host answers around them', async (t) => {
  t.match(await (await fetch(`${url}/health`)).json(), { ok: true });
  const wrongMethod = await fetch(`${url}/health`, { method: 'POST' });
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.headers.get('allow'), 'GET, HEAD');
  t.equal((await fetch(`${url}/nowhere`)).status, 404);
});
