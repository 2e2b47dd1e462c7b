import { createCors } from '@lib/cors/next';

export const runtime = 'edge';

const cors = createCors({ origin: ['https://app.example.com'] });

export const { GET, OPTIONS } = cors.route({ GET: async () => Response.json({ ok: true }) });
