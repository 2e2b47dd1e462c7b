/**
 * The three packages, packed and installed from their tarballs into a new app outside the
 * repository, with TypeScript compiling the app as docs/cors-module.md tells a user to, but
 * with skipLibCheck off, so our declarations are checked as strictly as the user's code: the user's specification's four ways of use then serve what the contract
 * says. The app's source is four-ways-app/app.ts.txt (not compiled here: it imports the
 * packages as an outside app does).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import t from 'tap';

import { appWithTarballs, REPOSITORY } from '../helpers/packing.js';

/** The tsconfig docs/cors-module.md gives, for an app.ts at the top of the folder (no rootDir). */
const USER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    types: ['node'],
    outDir: 'dist',
    // The docs turn it on (for @types/koa); off here, our declarations are checked as the user's code is.
    skipLibCheck: false,
  },
  include: ['app.ts'],
};

t.test("the seed's four ways, in a new app installed from the tarballs", { timeout: 240_000 }, async (t) => {
  const root = JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const scratch = appWithTarballs(
    'cors-four-ways-app',
    ['core', 'rest', 'cors'],
    [`typescript@${root.devDependencies.typescript}`, `@types/node@${root.devDependencies['@types/node']}`],
  );
  t.teardown(scratch.remove);
  writeFileSync(join(scratch.dir, 'tsconfig.json'), JSON.stringify(USER_TSCONFIG));
  writeFileSync(join(scratch.dir, 'app.ts'), readFileSync(join(REPOSITORY, 'test/packaging/four-ways-app/app.ts.txt')));
  t.doesNotThrow(() => scratch.run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.']), 'compiles with strict on and skipLibCheck off');

  type Answer = { status: number; headers: Record<string, string>; cookies: string[] };
  const answers = JSON.parse(scratch.run(process.execPath, ['dist/app.js'])) as Record<string, Answer[]>;
  const [plainOptions, anyOrigin] = answers.defaultSettings!;
  t.match(plainOptions, { status: 204, headers: { allow: 'GET, HEAD, OPTIONS', 'access-control-allow-origin': '*' } }, 'default settings: the OPTIONS twin');
  t.match(anyOrigin, { status: 200, headers: { 'access-control-allow-origin': '*' } });
  t.match(answers.moduleOptions, [{ status: 200, headers: { 'access-control-allow-origin': 'https://example.com' } }], 'module-level options');
  t.match(answers.routeOptions, [{ status: 200, headers: { 'access-control-allow-origin': 'https://example.com' } }], 'route-level options');
  const [loginPreflight, login] = answers.cookies!;
  t.match(loginPreflight, { status: 204, headers: { 'access-control-allow-origin': 'https://app.example.com', 'access-control-allow-credentials': 'true' } });
  t.match(
    login,
    { status: 200, headers: { 'access-control-allow-credentials': 'true' }, cookies: ['session=abc123; Path=/; HttpOnly; SameSite=Lax'] },
    'cookies on CORS responses',
  );
});
