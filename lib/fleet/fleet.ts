import { createHash } from 'node:crypto';
import PgBoss from 'pg-boss';
import { eq, sql } from 'drizzle-orm';
import type { HoldfastClient } from '@holdfast/client';
import { drainRedrives } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { deadLetters } from '@holdfast/engine/db/schema';
import { agents, runAgentStep, type AgentContext, type FleetTask, type StepVerdict } from './agents';
import { DEMO_TIMING, type FleetTiming } from './faults';
import { applyFleetMigrations } from './fleet-migrations';
import { remoteStepsOf, runRemoteStep } from './remote-agent';
import { emptyTally, type FleetTally } from './tally';

/** The queues the fleet works, one per agent; `research` works through the HTTP API. */
export const fleetQueues = [...Object.keys(agents), 'research'];
/** Workers per queue: a hung job must not stop the others. */
const WORKERS_PER_QUEUE = 3;

export interface FleetOptions {
  databaseUrl: string;
  /** Decides every injected fault: a fixed seed gives the same faults on every run. */
  seed: number;
  timing?: FleetTiming;
  /** The research agent's API client; without one, research tasks are not enqueued. */
  client?: HoldfastClient;
  log?: (line: string) => void;
}

export interface Fleet {
  tally: FleetTally;
  enqueue: (tasks: FleetTask[]) => Promise<void>;
  /** Puts redriven dead letters back on their queues; returns how many. */
  deliverRedrives: () => Promise<number>;
  /** Resolves when no job is waiting or running and no step body is still going. */
  waitUntilIdle: (timeoutMs: number) => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * Starts the demo fleet on pg-boss in the same PostgreSQL, once the fleet's own
 * migrations have made its downstream tables: one queue per agent, short
 * visibility timeouts (so slow and crashed workers are really redelivered),
 * and every step through Holdfast.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const timing = options.timing ?? DEMO_TIMING;
  const log = options.log ?? (() => {});
  const connection = connectDatabase(options.databaseUrl, { maxConnections: 10 });
  // The fleet's tables are the fleet's own: made here, before any agent writes, never by the product.
  const applied = await applyFleetMigrations(connection.db).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  if (applied.length > 0) log(`Fleet tables ready (${applied.join(', ')})`);
  const tally = emptyTally();
  const stopping = new AbortController();
  const context: AgentContext = { db: connection.db, seed: options.seed, timing, tally, stopping: stopping.signal };
  const inFlight = new Set<Promise<unknown>>();

  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: 'pgboss',
    max: 6,
    supervise: true,
    maintenanceIntervalSeconds: 30,
  });
  boss.on('error', (error) => log(`Queue error: ${error.message}`));
  await boss.start();

  // Dispatch is guarded by its own key, but a slow attempt whose key's in-progress time ran out is taken over
  // by a redelivery (the queue's downstream can deduplicate): so the sub-tasks' jobs have ids derived from their
  // task ids, and a repeated dispatch inserts nothing (the queue's insert skips an id it holds).
  const dispatch = async (tasks: FleetTask[]) => {
    for (const task of tasks) await boss.send(task.agent, task, { id: jobIdOf(task.taskId) });
  };

  const runTask = async (task: FleetTask): Promise<void> => {
    const steps: (() => Promise<StepVerdict>)[] =
      task.agent === 'research'
        ? remoteStepsOf(task).map(
            (step, index, all) => () =>
              runRemoteStep({ ...context, client: options.client!, dispatch }, task, step, index === all.length - 1),
          )
        : agents[task.agent]!.steps.map(
            (spec, index, all) => () => runAgentStep(context, task, spec, index === all.length - 1),
          );
    for (const step of steps) {
      const verdict = await step();
      // Failing the job hands it back to pg-boss, which delivers it again after the retry delay.
      if (verdict === 'later') throw new Error(`task ${task.taskId}: a step asked to be tried again later`);
      if (verdict === 'stop') return;
    }
    tally.completedTaskIds.add(task.taskId);
  };

  for (const queue of fleetQueues) {
    await boss.createQueue(queue, {
      name: queue,
      retryLimit: 60,
      retryDelay: timing.retryDelaySeconds,
      expireInSeconds: timing.visibilityTimeoutSeconds,
    });
    for (let worker = 0; worker < WORKERS_PER_QUEUE; worker += 1) {
      await boss.work<FleetTask>(queue, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
        // Tracked so that stop() and waitUntilIdle() also wait for bodies pg-boss gave up on.
        const work = runTask(job!.data);
        inFlight.add(work);
        void work.catch(() => {}).finally(() => inFlight.delete(work));
        await work;
      });
    }
  }

  return {
    tally,
    enqueue: async (tasks) => {
      for (const task of tasks) {
        if (task.agent === 'research' && !options.client) continue;
        await boss.send(task.agent, task);
        tally.tasksStarted += 1;
      }
    },
    deliverRedrives: async () => {
      const { delivered } = await drainRedrives({ db: connection.db }, async (redrive, tx) => {
        const [letter] = await tx.select().from(deadLetters).where(eq(deadLetters.id, redrive.deadLetterId));
        if (!letter) throw new Error(`redrive ${redrive.outboxKey}: its dead letter is gone`);
        // pg-boss has its own connection, so this send is not part of the drain's transaction: a
        // redrive may be delivered twice. The task's steps are keyed, so a second copy changes nothing.
        // The redrive names the task to run: the letter's own, or a new one for an edited payload.
        await boss.send(letter.queue, { taskId: redrive.taskId, agent: letter.agent });
      });
      return delivered;
    },
    waitUntilIdle: async (timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [row] = await connection.db.execute<{ waiting: number }>(
          sql`select count(*)::int as waiting from pgboss.job where name = any(${`{${fleetQueues.join(',')}}`}::text[]) and state in ('created', 'retry', 'active')`,
        );
        if ((row?.waiting ?? 0) === 0 && inFlight.size === 0) return;
        if (Date.now() > deadline)
          throw new Error(
            `the fleet was still busy after ${timeoutMs} ms (${row?.waiting} jobs, ${inFlight.size} bodies)`,
          );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    stop: async () => {
      stopping.abort();
      await boss.stop({ graceful: true, timeout: 10_000, wait: true });
      await Promise.allSettled([...inFlight]);
      await connection.close();
    },
  };
}

/** A UUID derived from a task id (SHA-1, shaped as a version 5 UUID), so one task is one queue job however often it is sent. */
function jobIdOf(taskId: string): string {
  const hex = createHash('sha1').update(`holdfast-fleet-job:${taskId}`).digest('hex');
  const variant = ((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}
