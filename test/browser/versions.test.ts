/**
 * Browser versions, without a browser: scripts/test-tools.sh refuses a chromium or firefox-esr
 * older than the suites are run with, in one line, before tap starts; the minimums are the same
 * in the script and in engines.ts; behaviours that differ by version are pinned per version range.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t, { type Test } from 'tap';

import { FIREFOX_UNRELIABLE_PREFLIGHT_CACHE, majorVersion, MINIMUM_MAJOR, reusesFirstPreflight } from './engines.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/test-tools.sh', import.meta.url));

t.test('the minimums are the same in scripts/test-tools.sh and engines.ts', async (t) => {
  const script = readFileSync(SCRIPT, 'utf8');
  const block = /declare -A MINIMUM=\(([^)]*)\)/.exec(script)?.[1] ?? '';
  const minimums = Object.fromEntries([...block.matchAll(/\[([a-z-]+)\]=(\d+)/g)].map((match) => [match[1], Number(match[2])]));
  t.same(minimums, { chromium: MINIMUM_MAJOR.chromium, 'firefox-esr': MINIMUM_MAJOR.firefox });
  // Debian 12's own versions, both run in full (and its security updates', 156 and 153).
  t.same(MINIMUM_MAJOR, { chromium: 150, firefox: 140 });
});

/** Runs the script against fake binaries printing these versions; every other tool present. */
function testTools(t: Test, versions: { chromium: string; firefox: string | undefined }): Promise<{ code: number; stdout: string; stderr: string }> {
  const root = mkdtempSync(join(tmpdir(), 'test-tools-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const fake = (path: string, output: string | undefined) => {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    writeFileSync(join(root, path), output === undefined ? '#!/bin/sh\nexit 3\n' : `#!/bin/sh\necho '${output}'\n`);
    chmodSync(join(root, path), 0o755);
  };
  fake('/usr/lib/chromium/chromium', `Chromium ${versions.chromium} `);
  fake('/usr/lib/firefox-esr/firefox-esr', versions.firefox === undefined ? undefined : `Mozilla Firefox ${versions.firefox}`);
  for (const tool of [
    '/usr/bin/WebKitWebDriver',
    '/usr/bin/Xvfb',
    '/usr/sbin/varnishd',
    '/usr/bin/curl',
    '/usr/bin/redis-server',
    '/usr/lib/postgresql/15/bin/postgres',
  ])
    fake(tool, '');
  return new Promise((resolve) => {
    execFile('bash', [SCRIPT], { env: { ...process.env, TEST_TOOLS_ROOT: root } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

t.test('test-tools.sh: at or above the minimums it passes, saying nothing', async (t) => {
  t.same(await testTools(t, { chromium: '150.0.7871.100', firefox: '140.12.0esr' }), { code: 0, stdout: '', stderr: '' });
  t.same(await testTools(t, { chromium: '156.0.8078.108', firefox: '153.7.0esr' }), { code: 0, stdout: '', stderr: '' });
  t.same(await testTools(t, { chromium: '171.0.1.2', firefox: '166.1.0esr' }), { code: 0, stdout: '', stderr: '' }, 'whatever newer version');
});

t.test('test-tools.sh: below a minimum it fails at once, in one line naming the version found and the minimum', async (t) => {
  t.same(await testTools(t, { chromium: '150.0.7871.100', firefox: '128.14.0esr' }), {
    code: 1,
    stdout: '',
    stderr:
      'Too old for the browser suites: firefox-esr 128.14.0esr, minimum 140. ' +
      "Upgrade with: sudo sh -c 'apt-get update -qq && apt-get install -y -qq --only-upgrade firefox-esr'\n",
  });
  t.same(await testTools(t, { chromium: '149.0.7827.1', firefox: '115.30.0esr' }), {
    code: 1,
    stdout: '',
    stderr:
      'Too old for the browser suites: chromium 149.0.7827.1, minimum 150; firefox-esr 115.30.0esr, minimum 140. ' +
      "Upgrade with: sudo sh -c 'apt-get update -qq && apt-get install -y -qq --only-upgrade chromium firefox-esr'\n",
  });
  const silent = await testTools(t, { chromium: '156.0.8078.108', firefox: undefined });
  t.equal(silent.code, 1);
  t.match(
    silent.stderr,
    /^Too old for the browser suites: firefox-esr: no version from \S+\/usr\/lib\/firefox-esr\/firefox-esr --version, minimum 140\. Upgrade with: .*\n$/,
  );
});

t.test('the first preflight answer is reused by every engine but Firefox from 153 ESR', async (t) => {
  t.equal(FIREFOX_UNRELIABLE_PREFLIGHT_CACHE, 153);
  t.equal(majorVersion('Firefox 140.12.0esr'), 140);
  t.equal(majorVersion('Chromium 156.0.8078.108'), 156);
  t.equal(majorVersion('WebKitGTK 2.50.6'), 2);
  t.throws(() => majorVersion('Firefox'), { message: /no version number in "Firefox"/ });
  const cases: [string, string, boolean][] = [
    ['firefox', 'Firefox 140.12.0esr', true],
    ['firefox', 'Firefox 152.0', true],
    ['firefox', 'Firefox 153.7.0esr', false],
    ['firefox', 'Firefox 160.0', false],
    ['chromium', 'Chromium 150.0.7871.100', true],
    ['chromium', 'Chromium 156.0.8078.108', true],
    ['webkit', 'WebKitGTK 2.50.6', true],
  ];
  for (const [name, version, reuses] of cases) t.equal(reusesFirstPreflight({ name: name as 'firefox', version }), reuses, version);
});
