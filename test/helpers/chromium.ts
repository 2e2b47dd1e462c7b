import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's binary without its wrapper script (which only adds flags and noise). */
const CANDIDATES = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'];
const INSTALL = 'apt-get install -y --no-install-recommends chromium';

/** Debian's Chromium, which scripts/test-tools.sh installs before tap runs; missing, an error that says the command. Never a skip. */
export function findChromium(): string {
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found !== undefined) return found;
  throw new Error(`The browser suite needs Debian's Chromium. Install it with: sudo ${INSTALL} (npm test runs scripts/test-tools.sh, which does it as root)`);
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
