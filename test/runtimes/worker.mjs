// A Cloudflare worker (module syntax), bundled by esbuild and served by workerd.
import { handle } from './policy.mjs';

export default { fetch: handle };
