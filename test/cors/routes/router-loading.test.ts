/**
 * find-my-way is loaded where a tree of the engine's own is made, and nowhere else: the entry
 * points that ask their framework which route it runs (Express, Koa, hono) never load it, and the
 * standalone engine loads it at its first route(), not at import. Each case in a fresh process,
 * as this one has loaded find-my-way already; each answers a real request through its framework
 * first, so the check is of a server that has served.
 */
import { execFileSync } from 'node:child_process';

import t from 'tap';

/** Runs `app` in a fresh node and returns what it printed: `granted` (the grant) and `loaded` (find-my-way in require.cache then). */
function probe(app: string): { granted: string | null; loaded: boolean } {
  const script = `
    const loaded = () => Object.keys(require.cache).some((file) => /[\\\\/]find-my-way[\\\\/]index\\.js$/.test(file));
    const report = (granted) => console.log(JSON.stringify({ granted, loaded: loaded() }));
    ${app}
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { granted: string | null; loaded: boolean };
}

/** Serves `handler` on a free port, sends one GET with Origin to `/users/7`, and reports the grant. */
const overHttp = (handler: string) => `
  const server = require('node:http').createServer(${handler});
  server.listen(0, '127.0.0.1', async () => {
    const answer = await fetch('http://127.0.0.1:' + server.address().port + '/users/7', { headers: { Origin: 'https://app.example.com' } });
    server.close();
    report(answer.headers.get('access-control-allow-origin'));
  });
`;

t.test('Express, Koa and hono entry points serve without loading find-my-way', async (t) => {
  const express = probe(`
    const express = require('express');
    const { createCors } = require('@lib/cors/express');
    const app = express();
    app.use(createCors({ origin: ['https://app.example.com'] }));
    app.get('/users/:id', (req, res) => res.send('user'));
    ${overHttp('app')}
  `);
  t.same(express, { granted: 'https://app.example.com', loaded: false }, 'Express');

  const koa = probe(`
    const Koa = require('koa');
    const Router = require('@koa/router');
    const { createCors } = require('@lib/cors/koa');
    const app = new Koa();
    const router = new Router();
    router.get('/users/:id', (ctx) => { ctx.body = 'user'; });
    app.use(createCors({ origin: ['https://app.example.com'] }));
    app.use(router.routes());
    ${overHttp('app.callback()')}
  `);
  t.same(koa, { granted: 'https://app.example.com', loaded: false }, 'Koa');

  const hono = probe(`
    const { Hono } = require('hono');
    const { createCors } = require('@lib/cors/hono');
    const app = new Hono();
    app.use(createCors(app, { origin: ['https://app.example.com'] }));
    app.get('/users/:id', (c) => c.text('user'));
    Promise.resolve(app.fetch(new Request('http://localhost/users/7', { headers: { Origin: 'https://app.example.com' } })))
      .then((answer) => report(answer.headers.get('access-control-allow-origin')));
  `);
  t.same(hono, { granted: 'https://app.example.com', loaded: false }, 'hono');
});

t.test('the standalone engine loads find-my-way at its first route(), not at import', async (t) => {
  const { granted, loaded } = probe(`
    const { createCors } = require('@lib/cors/standalone');
    const cors = createCors({ origin: ['https://app.example.com'] });
    if (loaded()) throw new Error('find-my-way was loaded at import');
    cors.route('GET', '/users/:id');
    ${overHttp('(req, res) => cors.handle(req, res, () => res.end("user"))')}
  `);
  t.equal(granted, 'https://app.example.com');
  t.ok(loaded, 'loaded once a route is covered');
});
