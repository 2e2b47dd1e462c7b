import type { NextApiRequest, NextApiResponse } from 'next';
import NextCors from 'nextjs-cors';

// As nextjs-cors's README uses it: the cors options, awaited at the top of the handler.
export default async function handler(req: NextApiRequest, res: NextApiResponse) {
  await NextCors(req, res, { methods: ['GET', 'OPTIONS'], origin: 'https://app.example.com', optionsSuccessStatus: 204 });
  res.status(200).json({ ok: true });
}
