/**
 * The READMEs that ship: each package's tarball holds its README, @lib/cors's is the one
 * scripts/package-readme.js makes from docs/ (never stale), and every relative link in a shipped
 * README (and in @lib/cors's docs/errors.md) resolves inside its tarball. The root README stays a
 * front page: 300 lines or fewer.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';

import t from 'tap';

import { pack, REPOSITORY } from '../helpers/packing.js';

/** GitHub's anchor for a heading, as scripts/package-readme.js makes them. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

t.test('src/cors/README.md is what docs/ make', async (t) => {
  const check = spawnSync(process.execPath, [join(REPOSITORY, 'scripts/package-readme.js'), '--check'], { encoding: 'utf8' });
  t.equal(check.status, 0, check.stderr);
});

t.test('the root README is a front page of 300 lines or fewer, with install and a first example in its first 40', async (t) => {
  const text = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
  const lines = text.split('\n');
  t.ok(lines.length <= 300, `${lines.length} lines`);
  t.ok(lines.findIndex((line) => line === '```ts') < 40, 'a first example in the first 40 lines');
  t.ok(lines.findIndex((line) => line === '## Install') < 40, 'the install in the first 40 lines');
});

t.test('the @lib/cors README is one page of 300 lines or fewer', async (t) => {
  const lines = readFileSync(join(REPOSITORY, 'src/cors/README.md'), 'utf8').split('\n').length;
  t.ok(lines <= 300, `${lines} lines`);
});

t.test('each tarball ships a README whose relative links resolve inside the tarball', { timeout: 120_000 }, async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'readmes-'));
  t.teardown(() => rmSync(folder, { recursive: true, force: true }));
  for (const workspace of ['core', 'rest', 'cors']) {
    const tarball = pack([workspace], folder)[0]!;
    const files = new Set(
      execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map((entry) => entry.replace(/^package\//, '')),
    );
    t.ok(files.has('README.md'), `@lib/${workspace}: README.md is in the tarball`);
    const readme = execFileSync('tar', ['-xzOf', tarball, 'package/README.md'], { encoding: 'utf8' });
    const anchors = new Set([...readme.matchAll(/^#+ (.+)$/gm)].map(([, heading]) => slug(heading!)));
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/.test(target));
    for (const link of links) {
      const [path, fragment] = link.split('#');
      if (path === '') t.ok(anchors.has(fragment!), `@lib/${workspace}: #${fragment} is a heading of its README`);
      else t.ok(files.has(posix.normalize(path!)), `@lib/${workspace}: ${link} is in the tarball`);
    }
    if (workspace === 'cors') {
      // explain() and cors-check link the sections of docs/errors.md by that path from the package's folder.
      t.ok(files.has('docs/errors.md'), '@lib/cors: docs/errors.md is in the tarball');
      const errorsPage = execFileSync('tar', ['-xzOf', tarball, 'package/docs/errors.md'], { encoding: 'utf8' });
      const pageAnchors = new Set([...errorsPage.matchAll(/^#+ (.+)$/gm)].map(([, heading]) => slug(heading!)));
      for (const [, link] of errorsPage.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(link!)) continue;
        const [path, fragment] = link!.split('#');
        if (path === '') t.ok(pageAnchors.has(fragment!), `@lib/cors: #${fragment} is a heading of docs/errors.md`);
        else t.ok(files.has(posix.normalize(posix.join('docs', path!))), `@lib/cors: ${link} from docs/errors.md is in the tarball`);
      }
      t.ok(links.length > 0, 'the @lib/cors README links within itself');
      for (const part of [
        '@lib/cors/express',
        '@lib/cors/koa',
        '@lib/cors/hono',
        '@lib/cors/fastify',
        '@lib/cors/fetch',
        '@lib/cors/standalone',
        'cors-check',
        'CORS_INVALID_ORIGIN',
        'allowedHeaders',
        'Moving from `cors`',
      ]) {
        t.ok(readme.includes(part), `the @lib/cors README covers ${part}`);
      }
    }
  }
});
