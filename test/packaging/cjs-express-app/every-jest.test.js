// Run by every jest people have, each with its default configuration: jest 26 (a jsdom
// environment by default, and no `node:` specifiers, no `exports` map), 27, 29 and 30. So it
// requires Node's modules by their plain names and asks over http.request, which jsdom leaves alone.
const assert = require('assert');
const http = require('http');

const { createApp } = require('./app.js');

/** One request to the app on a port of its own: status and headers. */
function ask(method, path, headers) {
  return new Promise((resolve, reject) => {
    const server = createApp().listen(0, '127.0.0.1', () => {
      const request = http.request({ host: '127.0.0.1', port: server.address().port, method, path, headers }, (response) => {
        response.resume();
        response.on('end', () => {
          server.close();
          resolve({ status: response.statusCode, headers: response.headers });
        });
      });
      request.on('error', (error) => {
        server.close();
        reject(error);
      });
      request.end();
    });
  });
}

// Not '@lib/cors' itself here: CorsModule's host loads find-my-way, which requires `node:`
// specifiers jest 26 cannot resolve (27 on can); cors.test.js loads it on jest 29 and 30.
test('every framework entry point loads with require()', () => {
  for (const entry of ['@lib/cors/standalone', '@lib/cors/express', '@lib/cors/koa', '@lib/cors/hono', '@lib/cors/fetch', '@lib/cors/fastify']) {
    const loaded = require(entry);
    assert.equal(typeof loaded.CorsOptionsError, 'function', entry);
  }
});

test('a preflight from a listed origin is granted, with the route methods', async () => {
  const answer = await ask('OPTIONS', '/posts/7', { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'PUT' });
  assert.equal(answer.status, 204);
  assert.equal(answer.headers['access-control-allow-origin'], 'https://app.example.com');
});

test('an option error names the option, the value and the fix', () => {
  const { createCors, CorsOptionsError } = require('@lib/cors/express');
  assert.throws(
    () => createCors({ origin: 'localhost:4200/' }),
    (error) => error instanceof CorsOptionsError && /'http:\/\/localhost:4200'/.test(error.message),
  );
});
