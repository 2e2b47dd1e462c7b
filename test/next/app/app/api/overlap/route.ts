import { APP, cors } from '../../../lib/cors';

// A policy of its own, and covered by proxy.ts too: answered only where both grant the same.
export const { GET, OPTIONS } = cors.route({ GET: async () => new Response('overlap') }, { origin: APP, allowCredentials: true });
