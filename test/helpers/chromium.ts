import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's binary without its wrapper script (which only adds flags and noise). */
const CANDIDATES = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'];
const INSTALL = 'apt-get update && apt-get install -y chromium';

/**
 * Debian's Chromium, installed now if missing and this process may (root with apt-get);
 * otherwise an error that says the exact command. Never a skip.
 */
export function findChromium(): string {
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found !== undefined) return found;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
    execFileSync('sh', ['-c', `${INSTALL} >/dev/null`], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    const installed = CANDIDATES.find((path) => existsSync(path));
    if (installed !== undefined) return installed;
  }
  throw new Error(`The browser suite needs Debian's Chromium. Install it with: sudo sh -c '${INSTALL}'`);
}

/** Headless Chromium with a fresh profile; closed and deleted by `close()`. */
export async function launchChromium(): Promise<{ context: BrowserContext; version: string; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'cors-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: findChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const version = context.browser()?.version() ?? execFileSync(findChromium(), ['--version'], { encoding: 'utf8' }).trim();
  return {
    context,
    version,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
