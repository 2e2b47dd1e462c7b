// The one policy and application every runtime serves (plain JavaScript: each runtime loads it as
// it is, Deno and Bun directly, workerd after wrangler builds it the way workers are deployed).
import diagnosticsChannel from 'node:diagnostics_channel';

import { createCors, DECISION_CHANNEL } from '@lib/cors/fetch';

// The engine's decision channel, as an operator subscribes to it: each runtime must publish the
// same events as Node (the app puts the last one in its answer, which the test compares).
let lastDecision = 'none';
diagnosticsChannel.subscribe(DECISION_CHANNEL, (message) => {
  lastDecision = `${message.kind} ${message.method} ${message.route} ${message.origin} ${message.verdict} ${message.reason}`;
});

export const cors = createCors({
  origin: ['https://app.example.com', 'https://admin.example.com'],
  allowCredentials: true,
  exposedHeaders: ['X-Request-Id'],
  maxAge: 600,
})
  .route(['GET', 'PUT'], '/users/:id')
  .route('POST', '/login');

export function app(request) {
  const { pathname } = new URL(request.url);
  return new Response(JSON.stringify({ path: pathname, method: request.method, decision: lastDecision }), {
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': '7' },
  });
}

export const handle = (request) => cors.handle(request, app);
