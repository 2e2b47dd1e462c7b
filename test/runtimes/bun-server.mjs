// Bun.serve on 127.0.0.1; prints "listening <port>".
import { handle } from './policy.mjs';

const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handle });
console.log(`listening ${server.port}`);
