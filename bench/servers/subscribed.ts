/** The standalone server with a no-op subscriber on `lib-cors:decision`: each decision is built and published, and nobody does anything with it. */
import { subscribe } from 'node:diagnostics_channel';

import { serveStandalone } from './standalone-app.js';
import { ALLOWED_ORIGIN } from './policy.js';

subscribe('lib-cors:decision', () => {});
serveStandalone({ origin: ALLOWED_ORIGIN });
