import path from 'node:path';
import { defineConfig } from 'vitest/config';

const root = import.meta.dirname;
const reportDir = process.env.HOLDFAST_TEST_REPORT_DIR;
/**
 * Integration files at once. Race tests open up to 32 connections each: the embedded test server
 * allows 400, a stock PostgreSQL (TEST_DATABASE_URL) 100, so two files at a time there.
 */
const integrationWorkers = Number(process.env.HOLDFAST_INTEGRATION_WORKERS ?? (process.env.TEST_DATABASE_URL ? 2 : 3));

export default defineConfig({
  resolve: {
    alias: {
      '@': root,
      // Read models are marked server-only for Next; in tests they run in plain Node.
      'server-only': path.join(root, 'tests/support/server-only-stub.ts'),
    },
  },
  test: {
    reporters: reportDir ? ['default', 'json'] : ['default'],
    outputFile: reportDir ? { json: path.join(reportDir, `vitest-${process.pid}.json`) } : undefined,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          // The example receivers tests save channels with, allowed by name, so saving one never asks a DNS
          // server (tests send to loopback only; tests/unit/net/outbound-address.test.ts tests the rule itself).
          env: { HOLDFAST_ALERT_ALLOWED_HOSTS: 'hooks.example.com,hooks.slack.com' },
          globalSetup: ['tests/support/global-database.ts'],
          // Servers a file started and left running are killed when it ends (tests/support/holdfast-server.ts).
          setupFiles: ['tests/support/leftover-servers.ts'],
          // A safety net, not a speed check (benchmarks measure speed): with files side by side on two
          // cores, a heavy test (1,000 dead letters redriven, 64 racing connections) can take 30 s.
          testTimeout: 120_000,
          // Files run side by side, each in its own database copy: much of a file's time is spent
          // waiting on servers it starts, on timers and on PostgreSQL.
          fileParallelism: integrationWorkers > 1,
          maxWorkers: integrationWorkers,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
