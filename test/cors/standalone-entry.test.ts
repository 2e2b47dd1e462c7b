/** `@lib/cors/standalone` loads nothing of the dependency-injection host. */
import { execFileSync } from 'node:child_process';

import t from 'tap';

t.test('importing @lib/cors/standalone leaves the Reflect metadata API (loaded by @lib/core) absent', async (t) => {
  const probe = `
    const cors = await import('@lib/cors/standalone');
    const before = typeof Reflect.getMetadata;
    await import('@lib/cors');
    console.log(JSON.stringify({ createCors: typeof cors.createCors, before, after: typeof Reflect.getMetadata }));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
  t.same(JSON.parse(output), { createCors: 'function', before: 'undefined', after: 'function' });
});
