// hono on @hono/node-server + hono's cors, configured to the benchmark's policy.
import { serve } from '@hono/node-server';

// hono-app.mjs first: it imports policy.js after hono, which marks where the server's own code starts.
import { honoApp } from './hono-app.mjs';

import { announce } from '../../build/bench/servers/policy.js';

serve({ fetch: honoApp('hono').fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info.port));
