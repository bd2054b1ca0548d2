import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); `.ci/run` installs it. Override with CHROMIUM_PATH. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where browser tests save screenshots (git-ignored). */
export const testOutputDir = join(__dirname, '..', '..', 'test-output');

/**
 * Headless Chromium for page tests. The background-networking flags keep it from reaching out of this closed
 * machine; no browser is downloaded (playwright-core with Debian's executable).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The path of a screenshot named `name` under the test output folder (the folder is made if missing). */
export function screenshotPath(name: string): string {
  mkdirSync(testOutputDir, { recursive: true });
  return join(testOutputDir, name);
}
