import { APP, cors } from '../../../lib/cors';

// Reads are open to every origin; writes are credentialed, from the app's origin alone.
export const { GET, POST, OPTIONS } = cors.route(
  {
    GET: async () => Response.json({ items: ['a', 'b'] }),
    POST: async (request: Request) => Response.json({ created: await request.text() }, { status: 201 }),
  },
  { origin: '*', POST: { origin: APP, allowCredentials: true } },
);
