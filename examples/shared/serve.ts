import type { Class } from '@lib/core';
import { RestApplication } from '@lib/rest';

/** Starts an example's root module on PORT (default 3000) and prints its curl commands, then how to stop it. */
export async function serveExample(name: string, rootModule: Class, curls: (url: string) => string[]): Promise<void> {
  const app = await RestApplication.create(rootModule);
  const { port } = await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  console.log(`${name} example listening on ${url}\n`);
  console.log(curls(url).join('\n'));
  console.log('\nStop it with Ctrl+C.');
}
