import { createHoldfastClient } from '../../lib/client';
import { createApiToken, revokeApiToken, SWEEPER } from '../../lib/core';
import { connectDatabase } from '../../lib/db/client';
import { fleetQueues, startFleet } from '../../lib/fleet/fleet';

/** A new task every few seconds, round the agents: enough to watch, little enough for a laptop. */
const TASK_EVERY_MS = 4_000;
const REDRIVES_EVERY_MS = 5_000;

/**
 * Runs the demo fleet until stopped: tasks arrive steadily, redrives made in
 * the console go back onto the queues, and the research agent talks to
 * Holdfast over HTTP with a token of its own (made now, revoked at stop).
 */
export async function runDemoFleet(options: { databaseUrl: string; apiBaseUrl?: string; log: (line: string) => void }) {
  const connection = connectDatabase(options.databaseUrl, { maxConnections: 2 });
  const system = { db: connection.db, actor: SWEEPER };
  const { token, record } = await createApiToken(system, { name: 'demo fleet: research agent', scopes: ['ingest'] });
  const client = options.apiBaseUrl ? createHoldfastClient({ baseUrl: options.apiBaseUrl, token }) : undefined;
  const fleet = await startFleet({
    databaseUrl: options.databaseUrl,
    seed: Date.now() % 1_000_000,
    client,
    log: options.log,
  });

  let sequence = 0;
  const producer = setInterval(() => {
    sequence += 1;
    const agent = fleetQueues[sequence % fleetQueues.length]!;
    fleet
      .enqueue([{ taskId: `demo-${agent}-${Date.now().toString(36)}-${sequence}`, agent }])
      .catch((error: unknown) => options.log(`Fleet: ${String(error)}`));
  }, TASK_EVERY_MS);
  const redriver = setInterval(() => {
    fleet
      .deliverRedrives()
      .then((delivered) => delivered > 0 && options.log(`Fleet: ${delivered} redriven task(s) back on their queues`))
      .catch((error: unknown) => options.log(`Fleet redrives: ${String(error)}`));
  }, REDRIVES_EVERY_MS);
  options.log(`Demo fleet running: ${fleetQueues.join(', ')}${client ? ' (research through the HTTP API)' : ''}`);

  return {
    stop: async () => {
      clearInterval(producer);
      clearInterval(redriver);
      await fleet.stop();
      await revokeApiToken(system, { tokenId: record.id }).catch(() => {});
      await connection.close();
    },
  };
}
