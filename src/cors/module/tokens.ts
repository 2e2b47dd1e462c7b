/** The injection tokens CorsModule reads. */
import { InjectionToken } from '@lib/core';

import type { CorsLogger, CorsOptions } from '../core/options.js';

/** Where CorsModule and CorsService report warnings; provide it (e.g. in providersPerApp) to replace `console`. */
export const CORS_LOGGER = new InjectionToken<CorsLogger>('CORS_LOGGER');

/** The options of one `CorsModule.withOpts(...)` import. */
export const CORS_MODULE_OPTIONS = new InjectionToken<CorsOptions>('CorsModule.withOpts() options');

/** `true` (e.g. in providersPerApp) logs one bounded line per refused CORS request: the engine's `debug` setting. */
export const CORS_DEBUG = new InjectionToken<boolean>('CORS_DEBUG');
