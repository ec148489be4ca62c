/**
 * `npm run fleet`: the demo fleet against DATABASE_URL (migrated already),
 * until Ctrl-C. The fleet makes its own tables (lib/fleet/migrations) in the
 * holdfast_demo schema, so DATABASE_URL's role needs CREATE on the database
 * the first time. Set HOLDFAST_API_URL (e.g. http://127.0.0.1:3000) to have the
 * research agent work through the HTTP API of a running Holdfast, and the
 * briefing agent export its OpenTelemetry spans to it (on 127.0.0.1 only).
 */
import { getEnvironment } from '@holdfast/engine/env';
import { runDemoFleet } from './lib/demo-fleet';
import { describeStartupError } from './lib/startup-error';

const log = (line: string) => console.log(`[holdfast] ${line}`);

async function main() {
  const env = getEnvironment();
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is not set: name the database the fleet should work in');
  const fleet = await runDemoFleet({ databaseUrl: env.DATABASE_URL, apiBaseUrl: process.env.HOLDFAST_API_URL, log });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log('Stopping the fleet (waiting for running steps)...');
      void fleet.stop().then(() => process.exit(0));
    });
  }
}

main().catch((error: unknown) => {
  console.error(`[holdfast] ${describeStartupError(error)}`);
  process.exit(1);
});
