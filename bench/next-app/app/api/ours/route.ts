import { createCors } from '@lib/cors/next';

const cors = createCors({ origin: ['https://app.example.com'] });

export const { GET, OPTIONS } = cors.route({ GET: async () => Response.json({ ok: true }) });
