import { createHoldfastClient } from '@holdfast/client';
import { type Actor, createApiToken, INSTANCE_NAME, keepRenewableLease, revokeApiToken } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { getEnvironment } from '@holdfast/engine/env';
import { fleetQueues, startFleet } from '../../lib/fleet/fleet';

/** Who the fleet's tokens are made and revoked by, in the audit log. */
const DEMO_FLEET: Actor = { type: 'system', id: 'demo-fleet' };

/** A new task every few seconds, round the agents: enough to watch, little enough for a laptop. */
const TASK_EVERY_MS = 4_000;
const REDRIVES_EVERY_MS = 5_000;
/** The briefing agent (OpenTelemetry only) starts a briefing this often, one at a time. */
const BRIEFING_EVERY_MS = 6_000;

/** The renewable lease (packages/engine/src/core/leases/renewable-lease.ts) that lets one instance on a database run the fleet. */
export const DEMO_FLEET_LEASE = 'demo_fleet';

interface DemoFleetOptions {
  databaseUrl: string;
  apiBaseUrl?: string;
  log: (line: string) => void;
  /** Defaults to HOLDFAST_DEMO_FLEET_LEASE_SECONDS (30 s): after its instance dies, another takes the fleet over within about this long. */
  leaseTtlMs?: number;
}

/**
 * Runs the demo fleet on one instance of all those on this database, until
 * stopped. Resolves at once with the handle: the instance that takes the
 * fleet's lease runs the fleet and keeps renewing; the others check now and
 * then and take over when its holder stops renewing (it died) or lets go (it
 * stopped). A holder that finds the lease taken over stops its fleet.
 */
export async function runDemoFleet(options: DemoFleetOptions) {
  const { log } = options;
  // Loaded now, while the lease is decided: an instance that takes the fleet over later starts it at once,
  // rather than first loading the OpenTelemetry SDK (seconds, on a busy machine).
  if (options.apiBaseUrl) void briefingModules().catch(() => {});
  const connection = connectDatabase(options.databaseUrl, { maxConnections: 1 });
  let fleet: Awaited<ReturnType<typeof startDemoFleet>> | undefined;
  let stopping = false;
  let leftToAnother = false;
  // Starting and stopping the fleet take seconds; they run one after another, never at once.
  let changes: Promise<void> = Promise.resolve();

  const lease = keepRenewableLease(
    { db: connection.db },
    {
      name: DEMO_FLEET_LEASE,
      holder: INSTANCE_NAME,
      ttlMs: options.leaseTtlMs ?? getEnvironment().HOLDFAST_DEMO_FLEET_LEASE_SECONDS * 1_000,
      onChange: (holding) => {
        changes = changes.then(async () => {
          if (stopping) return;
          if (holding && !fleet) {
            if (leftToAnother) log('Demo fleet: the instance that ran it stopped; this one takes it over');
            fleet = await startDemoFleet(options).catch((error: unknown) => {
              log(`Demo fleet could not start here (${String(error)}); another instance may take it`);
              void lease.stop();
              return undefined;
            });
          } else if (!holding) {
            const running = fleet;
            fleet = undefined;
            await running?.stop();
            leftToAnother = true;
            log('Demo fleet runs on another instance; this one takes over if it stops');
          }
        });
      },
      onError: (error) => log(`Demo fleet lease: ${String(error)}`),
    },
  );

  return {
    stop: async () => {
      stopping = true;
      await changes;
      await fleet?.stop();
      // Let go only once the fleet is down, so two never run; the next instance need not wait out the TTL.
      await lease.stop().catch(() => {});
      await connection.close();
    },
  };
}

/**
 * The fleet itself: tasks arrive steadily, redrives made in the console go
 * back onto the queues, and the research agent talks to Holdfast over HTTP
 * with a token of its own (made now, revoked at stop). Beside it, the briefing
 * agent knows nothing of Holdfast: it exports OpenTelemetry spans to /v1/traces
 * with a traces token limited to it (made and revoked the same way).
 */
async function startDemoFleet(options: DemoFleetOptions) {
  const connection = connectDatabase(options.databaseUrl, { maxConnections: 2 });
  // The fleet's tokens are the demo's own, and their audit records say so (not the sweeper's).
  const system = { db: connection.db, actor: DEMO_FLEET };
  const { token, record } = await createApiToken(system, {
    name: 'demo fleet: research agent',
    scopes: ['ingest'],
  }).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  const client = options.apiBaseUrl ? createHoldfastClient({ baseUrl: options.apiBaseUrl, token }) : undefined;
  const seed = Date.now() % 1_000_000;
  const fleet = await startFleet({
    databaseUrl: options.databaseUrl,
    seed,
    client,
    log: options.log,
  }).catch(async (error: unknown) => {
    await revokeApiToken(system, { tokenId: record.id }).catch(() => {});
    await connection.close();
    throw error;
  });
  const briefing = options.apiBaseUrl
    ? await startBriefing(system, options.apiBaseUrl, seed, options.log).catch((error: unknown) => {
        // The rest of the fleet runs on without it.
        options.log(`Briefing agent not started: ${String(error)}`);
        return undefined;
      })
    : undefined;

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
  const agents = [...fleetQueues, ...(briefing ? [briefing.agent] : [])];
  const ways = [client && 'research through the HTTP API', briefing && `${briefing.agent} through OpenTelemetry only`];
  const how = ways.filter(Boolean).join(', ');
  options.log(`Demo fleet running: ${agents.join(', ')}${how ? ` (${how})` : ''}`);

  return {
    stop: async () => {
      clearInterval(producer);
      clearInterval(redriver);
      // The briefing agent's last spans are exported while the server still answers.
      await Promise.all([briefing?.stop(), fleet.stop()]);
      await revokeApiToken(system, { tokenId: record.id }).catch(() => {});
      await connection.close();
    },
  };
}

let briefingModulesLoading:
  | Promise<[typeof import('../../lib/fleet/briefing-agent'), typeof import('../../lib/fleet/briefing-exporter')]>
  | undefined;

/** The briefing agent's modules, loaded once. A server without the demo never loads the OpenTelemetry SDK. */
function briefingModules() {
  briefingModulesLoading ??= Promise.all([
    import('../../lib/fleet/briefing-agent'),
    import('../../lib/fleet/briefing-exporter'),
  ]);
  return briefingModulesLoading;
}

/**
 * The briefing agent with a token of its own: the traces scope, limited to its agent name; revoked at its stop.
 */
async function startBriefing(
  system: Parameters<typeof createApiToken>[0],
  apiBaseUrl: string,
  seed: number,
  log: (line: string) => void,
): Promise<{ agent: string; stop: () => Promise<void> }> {
  const [{ BRIEFING_AGENT }, { startBriefingAgent }] = await briefingModules();
  const { token, record } = await createApiToken(system, {
    name: 'demo fleet: briefing agent (OpenTelemetry)',
    scopes: ['traces'],
    allowedAgents: [BRIEFING_AGENT],
  });
  let agent: ReturnType<typeof startBriefingAgent>;
  try {
    agent = startBriefingAgent({ holdfastUrl: apiBaseUrl, token, seed, everyMs: BRIEFING_EVERY_MS, log });
  } catch (error) {
    await revokeApiToken(system, { tokenId: record.id }).catch(() => {});
    throw error;
  }
  return {
    agent: BRIEFING_AGENT,
    stop: async () => {
      await agent.stop().catch((error: unknown) => log(`Briefing agent: ${String(error)}`));
      await revokeApiToken(system, { tokenId: record.id }).catch(() => {});
    },
  };
}
