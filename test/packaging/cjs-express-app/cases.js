// The app's tests, with node:assert: cors.test.js runs them on jest (its default config), and
// node-test.js on node --test. Each starts the app on port 0 and asks it over HTTP.
const assert = require('node:assert/strict');
const { execFile } = require('node:child_process');
const { join } = require('node:path');

const { createApp } = require('./app.js');

/** Starts `app` on 127.0.0.1, runs `use(base)`, and closes it, connections included. */
async function withServer(app, use) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    await use(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const APP = 'https://app.example.com';

const cases = [
  [
    'a preflight from a listed origin is granted, with the route methods',
    () =>
      withServer(createApp(), async (base) => {
        const answer = await fetch(`${base}/posts/7`, { method: 'OPTIONS', headers: { Origin: APP, 'Access-Control-Request-Method': 'PUT' } });
        assert.equal(answer.status, 204);
        assert.equal(answer.headers.get('access-control-allow-origin'), APP);
        assert.equal(answer.headers.get('access-control-allow-methods'), 'PUT, OPTIONS');
        assert.equal(answer.headers.get('access-control-max-age'), '600');
      }),
  ],
  [
    'a request from another origin gets no grant, and still reaches the route',
    () =>
      withServer(createApp(), async (base) => {
        const answer = await fetch(`${base}/posts/7`, { method: 'PUT', headers: { Origin: 'https://evil.example.com' } });
        assert.equal(answer.headers.get('access-control-allow-origin'), null);
        assert.equal(await answer.text(), '{"id":"7"}');
      }),
  ],
  [
    "a route's own options: reads open to any origin",
    () =>
      withServer(createApp(), async (base) => {
        const answer = await fetch(`${base}/posts`, { headers: { Origin: 'https://any.example.org' } });
        assert.equal(answer.headers.get('access-control-allow-origin'), '*');
        assert.equal(await answer.text(), '[{"id":1}]');
      }),
  ],
  [
    'a bad option throws a CorsOptionsError, recognised by instanceof',
    () => {
      const { createCors, CorsOptionsError } = require('@lib/cors/express');
      assert.throws(
        () => createCors({ origin: 'https://a.example,https://b.example' }),
        (error) => error instanceof CorsOptionsError,
      );
    },
  ],
  [
    'every entry point loads with require()',
    () => {
      const exported = {
        '@lib/cors': 'CorsModule',
        '@lib/cors/standalone': 'createCors',
        '@lib/cors/fetch': 'createCors',
        '@lib/cors/express': 'createCors',
        '@lib/cors/koa': 'createCors',
        '@lib/cors/hono': 'createCors',
        '@lib/cors/origin-store': 'redisOrigins',
        '@lib/core': 'Injector',
        '@lib/rest': 'RestApplication',
      };
      for (const [entry, name] of Object.entries(exported)) assert.equal(typeof require(entry)[name], 'function', `${entry}: ${name}`);
    },
  ],
  [
    "require('@lib/cors/fastify') is the plugin, as fastify plugins are",
    async () => {
      const fastify = require('fastify')();
      const plugin = require('@lib/cors/fastify');
      assert.equal(plugin.default, plugin);
      assert.equal(plugin.fastifyCors, plugin);
      await fastify.register(plugin, { origin: [APP, 'https://admin.example.com'] });
      fastify.put('/posts/:id', async (request) => ({ id: request.params.id }));
      // Over a socket: fastify.inject() loads light-my-request, whose cookie@2 jest cannot require on Node 22.
      const base = await fastify.listen({ port: 0, host: '127.0.0.1' });
      try {
        const answer = await fetch(`${base}/posts/7`, { method: 'OPTIONS', headers: { Origin: APP, 'Access-Control-Request-Method': 'PUT' } });
        assert.equal(answer.status, 204);
        assert.equal(answer.headers.get('access-control-allow-origin'), APP);
        assert.equal(answer.headers.get('access-control-allow-methods'), 'PUT, OPTIONS');
      } finally {
        await fastify.close();
      }
    },
  ],
  [
    'the cors-check command judges the app as a browser would',
    () =>
      withServer(createApp(), async (base) => {
        const bin = join(__dirname, 'node_modules/.bin/cors-check');
        const [code, output] = await new Promise((resolve) =>
          execFile(bin, [`${base}/posts/7`, '--origin', APP, '--method', 'PUT'], (error, stdout) => resolve([error === null ? 0 : error.code, stdout])),
        );
        assert.equal(code, 0, output);
        assert.match(output, /preflight/);
      }),
  ],
];

module.exports = { cases };
