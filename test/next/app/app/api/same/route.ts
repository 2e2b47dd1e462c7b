import { cors } from '../../../lib/cors';

// The base policy, covered by proxy.ts too: the grants agree, so it answers.
export const { GET, OPTIONS } = cors.route({ GET: async () => new Response('same') });
