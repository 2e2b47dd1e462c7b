import type { NextApiRequest, NextApiResponse } from 'next';

import { cors } from '../../lib/cors';

export default cors.apiRoute(
  (req: NextApiRequest, res: NextApiResponse) => {
    if (req.query.fail !== undefined) throw new Error('the API route failed');
    res.status(200).json({ method: req.method });
  },
  { methods: ['GET', 'POST'], allowCredentials: true },
);
