import type { NextApiRequest, NextApiResponse } from 'next';

import { createCors } from '@lib/cors/next';

const cors = createCors({ origin: ['https://app.example.com'] });

export default cors.apiRoute((_req: NextApiRequest, res: NextApiResponse) => res.status(200).json({ ok: true }), { methods: ['GET'] });
