/**
 * `@lib/cors/next` as the three browser engines see it: test/next/app served by `next start`, a
 * page of another origin (same site, so credentials work in WebKit too) calling its route file
 * of two policies. A credentialed POST (preflighted: JSON) is let through under POST's policy; a
 * credentialed GET is refused, since GET's policy is `origin: '*'`; a method the file does not
 * export is refused at its preflight, and never reaches the application.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import t from 'tap';

import { ENGINES, launchEngine, pageHtml } from '../browser/engines.js';
import { startNext } from '../helpers/next-app.js';

t.setTimeout(420_000);

const pages = createServer((_req, res) => {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(pageHtml('blank'));
});
pages.listen(0, '127.0.0.1');
await once(pages, 'listening');
const page = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
const next = await startNext({ APP_ORIGIN: page });
t.teardown(async () => {
  await next.close();
  pages.closeAllConnections();
  pages.close();
});

for (const name of ENGINES) {
  t.test(name, { timeout: 240_000 }, async (t) => {
    const engine = await launchEngine(name);
    t.teardown(() => engine.close());
    const tab = await engine.open(`${page}/`);
    t.teardown(() => tab.close());
    const json = { 'Content-Type': 'application/json' };

    const written = await tab.fetch(`${next.origin}/api/items`, { method: 'POST', headers: json, body: '{"title":"a"}', credentials: 'include' });
    t.match(written, { resolved: true, status: 201 }, "a credentialed POST under POST's policy: read");
    t.match(written.body, /"created"/);

    const read = await tab.fetch(`${next.origin}/api/items`, { credentials: 'include' });
    t.equal(read.resolved, false, "a credentialed GET under GET's policy ('*'): refused by the browser");
    t.match(await tab.fetch(`${next.origin}/api/items`), { resolved: true, status: 200 }, 'the same GET without credentials: read');

    const before = next.output().length;
    const unexported = await tab.fetch(`${next.origin}/api/items`, { method: 'PUT', headers: json, body: '{}', credentials: 'include' });
    t.equal(unexported.resolved, false, 'PUT, which the file does not export: refused at its preflight');
    t.notMatch(next.output().slice(before), /threw/, 'and nothing ran for it');

    const edge = await tab.fetch(`${next.origin}/api/edge`, { method: 'PUT', headers: json, body: '{}', credentials: 'include' });
    t.match(edge, { resolved: true, status: 200 }, 'the Edge runtime route: its credentialed PUT is read');
  });
}
