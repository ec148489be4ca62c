import fs from 'node:fs';
import { chromium } from '@playwright/test';

/**
 * Which Chromium the browser tests drive: HOLDFAST_CHROMIUM_PATH if set, else
 * Debian's /usr/bin/chromium, else a browser Playwright downloaded itself.
 * Without any, stop with one line that says how to get one.
 */
export function chromiumExecutablePath(): string | undefined {
  const configured = process.env.HOLDFAST_CHROMIUM_PATH;
  if (configured) {
    if (!fs.existsSync(configured))
      throw new Error(`HOLDFAST_CHROMIUM_PATH points at ${configured}, which does not exist`);
    return configured;
  }
  if (fs.existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  if (fs.existsSync(chromium.executablePath())) return undefined; // Playwright's own download
  throw new Error(
    'No Chromium found for the browser tests: install one (Debian: apt-get install chromium) or set HOLDFAST_CHROMIUM_PATH',
  );
}

/** Flags that keep Chromium quiet on a machine without outside network. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
