/** @lib/cors/standalone in front of a find-my-way router holding the routes. */
import { serveStandalone } from './standalone-app.js';
import { ALLOWED_ORIGIN } from './policy.js';

serveStandalone({ origin: ALLOWED_ORIGIN });
