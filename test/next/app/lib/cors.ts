import { createCors } from '@lib/cors/next';

// The suite serves its page from an origin of its own, which it names in APP_ORIGIN.
export const APP = process.env.APP_ORIGIN ?? 'https://app.test';

// The base policy: proxy.ts gives it to what it covers, and each route file merges its own over it.
export const cors = createCors({ origin: [APP, 'https://partner.test'] });
