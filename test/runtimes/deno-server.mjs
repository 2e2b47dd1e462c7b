// Deno.serve on 127.0.0.1, the port given as the first argument; prints "listening <port>".
import { handle } from './policy.mjs';

const server = Deno.serve({ hostname: '127.0.0.1', port: Number(Deno.args[0] ?? 0), onListen: ({ port }) => console.log(`listening ${port}`) }, handle);
await server.finished;
