/**
 * The Public Suffix List the package ships (generated at build time from tldts's copy, loaded only
 * when a policy needs it): it answers as tldts does, the Node entry points and the fetch adapter
 * warn from it, no import loads it, and a bundle for an edge runtime does not carry it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import t from 'tap';
import { getPublicSuffix } from 'tldts';

import { createCors as createFetchCors } from '@lib/cors/fetch';
import { createCors } from '@lib/cors/standalone';

import { REPOSITORY } from '../../helpers/packing.js';

// The list is internal to the package (no export names it): its parity with tldts is checked on
// the built module itself, over every rule, which the public API could only reach one pattern at a time.
const require = createRequire(import.meta.url);
const PACKAGE = join(REPOSITORY, 'src/cors');
const { publicSuffixList } = require(join(PACKAGE, 'dist/core/public-suffixes.js')) as {
  publicSuffixList(): { isPublicSuffix(host: string): boolean } | undefined;
};
const { rules } = require(join(PACKAGE, 'dist/core/public-suffix-list.js')) as { rules: string };
const list = publicSuffixList()!;

const tldtsSays = (host: string) => getPublicSuffix(host, { allowPrivateDomains: true }) === host;

/** Every rule's name, `*` and `!` kept, from the generated "parent:child,child" lines. */
const ruleNames = rules.split('\n').flatMap((line) => {
  const [parent, children] = line.split(':') as [string, string];
  return children.split(',').map((child) => (parent === '' ? child : `${child}.${parent}`));
});

t.test('the shipped list says what tldts says of every rule, its parent, a name under it and its exceptions', (t) => {
  t.ok(ruleNames.length > 9000, `${ruleNames.length} rules`);
  const disagreements: string[] = [];
  for (const rule of ruleNames) {
    const name = rule.replace(/^!/, '');
    const hosts = [name.replace('*', 'stranger'), `stranger-site.${name.replace('*', 'x')}`, name.slice(name.indexOf('.') + 1)];
    for (const host of hosts) if (list.isPublicSuffix(host) !== tldtsSays(host)) disagreements.push(host);
  }
  t.same(disagreements, []);
  t.end();
});

t.test('host names the rules do not hold: unlisted top-level domains, IPv4 addresses, names tldts refuses', (t) => {
  for (const host of ['foo', 'x.foo', '1', '0.1', '127.0.0.1', 'a-z0-9-', '-a.com', 'a-.com', 'a..com', '', 'https', 'www.ck', 'a.www.ck', 'a.ck']) {
    t.equal(list.isPublicSuffix(host), tldtsSays(host), JSON.stringify(host));
  }
  // Random names over the alphabet of a RegExp's source that strangersGranted() reads them from.
  const label = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
  const host = fc.oneof(
    fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.')),
    fc.tuple(label, fc.constantFrom(...ruleNames.slice(0, 2000))).map(([first, rule]) => `${first}.${rule.replace(/^!/, '').replace('*', first)}`),
  );
  fc.assert(fc.property(host, (name) => list.isPublicSuffix(name) === tldtsSays(name)));
  t.end();
});

/** A public suffix three labels long that no hand-made list of hosting sites or country domains would hold. */
const RARE_SUFFIX = ruleNames.find((rule) => /^[a-z0-9-]+\.[a-z0-9-]+\.[a-z]+$/.test(rule) && tldtsSays(rule) && !rule.startsWith('*'))!;

for (const [name, create] of [
  ['@lib/cors/standalone', createCors],
  ['@lib/cors/fetch (in Node)', createFetchCors],
] as const) {
  t.test(`${name} warns about a sub-domain pattern over a public suffix of the real list (${RARE_SUFFIX})`, (t) => {
    const warnings: string[] = [];
    create({ origin: ['https://app.example.com', `https://*.${RARE_SUFFIX}`] }, { logger: { warn: (line) => warnings.push(line), error: () => {} } });
    t.match(warnings, [new RegExp(`grants every sub-domain of ${RARE_SUFFIX.replaceAll('.', '\\.')}, a public suffix`)]);
    t.end();
  });
}

/** Runs a script in a fresh Node process (the test's own process has long loaded the list); its output. */
function freshNode(script: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPOSITORY,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
}

t.test('the list is loaded at the first policy that needs it, never at import', (t) => {
  const loaded = `Object.keys((await import('node:module')).createRequire(import.meta.url).cache).some((path) => path.endsWith('public-suffix-list.js'))`;
  const script = (policy: string) =>
    `const { createCors } = await import('@lib/cors/fetch');
     const quiet = { warn() {}, error() {} };
     const before = ${loaded};
     createCors(${policy}, { logger: quiet }).route('GET', '/a');
     console.log(JSON.stringify([before, ${loaded}]));`;
  t.same(JSON.parse(freshNode(script("{ origin: ['https://app.example.com', /^https:\\/\\/b\\.example\\.com$/] }"))), [false, false], 'no pattern: never');
  t.same(JSON.parse(freshNode(script("{ origin: 'https://*.example.com' }"))), [false, true], 'a sub-domain pattern: at createCors()');
  t.same(
    JSON.parse(freshNode(script('{ origin: /^https:\\/\\/[a-z]+\\.example\\.com$/, allowCredentials: true }'))),
    [false, true],
    'a credentialed RegExp: at createCors()',
  );
  t.end();
});

/** @lib/cors/fetch bundled for an edge runtime as docs/entry-points.md shows, or for Node: the bundle's text. */
function bundle(platform: 'neutral' | 'node'): string {
  const dir = mkdtempSync(join(tmpdir(), 'cors-bundle-'));
  try {
    const options = platform === 'neutral' ? ['--platform=neutral', '--main-fields=module,main', '--external:node:*'] : ['--platform=node'];
    // The worker comes in on standard input, resolved from the repository, where @lib/cors is installed.
    execFileSync(
      join(REPOSITORY, 'node_modules/.bin/esbuild'),
      ['--bundle', '--minify', '--format=esm', ...options, `--outfile=${join(dir, 'out.mjs')}`, '--log-level=error'],
      {
        cwd: REPOSITORY,
        input: `import { createCors } from '@lib/cors/fetch';
        const cors = createCors({ origin: ['https://app.example.com'] }).route('GET', '/a');
        export default { fetch: (request) => cors.handle(request, () => new Response('ok')) };`,
      },
    );
    return readFileSync(join(dir, 'out.mjs'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('a bundle for an edge runtime carries none of the list; one for Node carries it, for the check', (t) => {
  // Two rules deep in the list, nowhere else in the package or find-my-way.
  const inList = (text: string) => text.includes('0emm.com') || text.includes('allfinanz');
  t.notOk(inList(bundle('neutral')), 'neutral (workerd, edge runtimes)');
  t.ok(inList(bundle('node')), 'node');
  t.end();
});
