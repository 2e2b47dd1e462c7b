// hono on @hono/node-server + @lib/cors/hono (app.use(createCors(app, options)), as its README gives it), configured
// to the benchmark's policy: the same routes and server as peers/hono.mjs, with our hono entry point in place of
// hono/cors.
import { serve } from '@hono/node-server';

// hono-app.mjs first: it imports policy.js after hono, which marks where the server's own code starts.
import { honoApp } from './hono-app.mjs';

import { announce } from '../../build/bench/servers/policy.js';

serve({ fetch: honoApp('lib-hono').fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
