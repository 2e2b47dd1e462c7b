import { APP, cors } from '../../../lib/cors';

export const runtime = 'edge';

export const { GET, PUT, OPTIONS } = cors.route(
  {
    GET: async () => new Response('edge'),
    PUT: async (request: Request) => new Response(`put ${await request.text()}`),
  },
  { PUT: { origin: APP, allowCredentials: true } },
);
