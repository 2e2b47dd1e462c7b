// A Cloudflare worker (module syntax), built by wrangler and served by workerd.
import { handle } from './policy.mjs';

export default { fetch: handle };
