// The one policy and application every runtime serves (plain JavaScript: each runtime loads it as
// it is, Deno and Bun directly, workerd after esbuild bundles it the way workers are deployed).
import { createCors } from '@lib/cors/fetch';

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
  return new Response(JSON.stringify({ path: pathname, method: request.method }), { headers: { 'Content-Type': 'application/json', 'X-Request-Id': '7' } });
}

export const handle = (request) => cors.handle(request, app);
