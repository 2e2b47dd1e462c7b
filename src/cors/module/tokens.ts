import { InjectionToken } from '@lib/core';

import type { CorsLogger, CorsOptions } from '../options.js';

/** Where CorsModule and CorsService report warnings; provide it (e.g. in providersPerApp) to replace `console`. */
export const CORS_LOGGER = new InjectionToken<CorsLogger>('CORS_LOGGER');

/** The options of one `CorsModule.withOpts(...)` import. */
export const CORS_MODULE_OPTIONS = new InjectionToken<CorsOptions>('CorsModule.withOpts() options');
