import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { chromiumArgs, chromiumExecutablePath } from './e2e/support/browser';
import { e2eRuntimeFile } from './e2e/support/runtime';

const port = Number(process.env.HOLDFAST_E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;
const reportDir = process.env.HOLDFAST_TEST_REPORT_DIR;

export default defineConfig({
  testDir: 'e2e',
  // One worker: the machine has two cores, and the server under test needs one.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  // The browser tests run beside the integration suite (npm test's lanes), so a step can take
  // twice as long as on an idle machine: time limits, not what is checked, allow for it.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: reportDir ? [['list'], ['json', { outputFile: path.join(reportDir, 'playwright.json') }]] : [['list']],
  use: {
    baseURL,
    // Recording a trace costs every test about a fifth more browser time, and CI keeps no files: traces
    // are kept on failure for a developer's own runs only.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    launchOptions: { executablePath: chromiumExecutablePath(), args: chromiumArgs },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  // The production build, served by the same script as `npm start`, on a throwaway
  // embedded PostgreSQL seeded with the demo attempts.
  webServer: {
    // The production command, exec'd so that the signal below reaches the server itself, which drains and stops.
    command: 'exec bin/holdfast --ephemeral',
    url: `${baseURL}/api/health`,
    timeout: 240_000,
    reuseExistingServer: false,
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    stdout: 'pipe',
    env: {
      PORT: String(port),
      DATABASE_URL: '',
      HOLDFAST_DATA_DIR: '.data/e2e/postgres',
      HOLDFAST_RUNTIME_FILE: e2eRuntimeFile,
      HOLDFAST_DEMO_DATA: 'on',
      // The live fleet would change figures while a test compares them; its own test is tests/integration/fleet/fleet.test.ts.
      HOLDFAST_DEMO: 'off',
      // The example receivers the specs save channels with, allowed by name so that saving one asks no DNS server.
      HOLDFAST_ALERT_ALLOWED_HOSTS: 'hooks.example.com,hooks.slack.com',
    },
  },
});
