// The hono application of hono-app.mjs served by Deno (Deno.serve) or Bun (Bun.serve), whichever runs it, with the
// CORS middleware HONO_CORS names ('hono', 'lib' or 'lib-hono'); prints "listening <port>".
import { honoApp } from './hono-app.mjs';

const app = honoApp(process.env.HONO_CORS);
if (globalThis.Deno !== undefined) {
  Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(`listening ${port}`) }, app.fetch);
} else {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch });
  console.log(`listening ${server.port}`);
}
