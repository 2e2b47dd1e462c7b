import type { NextRequest } from 'next/server';

import { cors } from './lib/cors';

export function proxy(request: NextRequest) {
  return cors.proxy(request);
}

// The pages, the static file and the routes without a policy of their own; /api/overlap and
// /api/same are covered on purpose, to prove what a route covered twice does.
export const config = { matcher: ['/', '/file.txt', '/api/plain', '/api/overlap', '/api/same'] };
