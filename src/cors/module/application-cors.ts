/** The one CORS engine of a @lib/rest application, shared by every module that imports CorsModule. */
import { injectable } from '@lib/core';

import type { CorsCore } from '../core/cors-core.js';

/**
 * The application's one engine (a providersPerApp singleton): every importing module's routes,
 * each with its own options, go into one route tree, so a request costs one lookup whatever the
 * number of modules that import CorsModule. `undefined` until a module with routes imports it.
 */
@injectable()
export class ApplicationCors {
  core: CorsCore | undefined;
}
