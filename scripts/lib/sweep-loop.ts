import { deliverDueAlerts, type DeliveryReport } from '@holdfast/engine/alerts';
import { runAlertSweep, type AlertSweep } from '@holdfast/engine/alerts';
import type { OutboundOptions } from '@holdfast/engine/alerts';
import { startDatabaseClock, type CoreContext, type CorePolicy } from '@holdfast/engine/core';
import { runDueSweeps, type SweepReport, type SweepSettings } from '@holdfast/engine/scheduler';
import type { LeaseOutcome } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { corePolicyFrom, getEnvironment, type Environment } from '@holdfast/engine/env';
import { describeForLog } from '../../lib/server/log-error';

/** The sweeps' settings as the environment gives them. */
export function sweepSettingsFrom(env: Environment): SweepSettings {
  return {
    frozenAfterDays: env.HOLDFAST_FROZEN_AFTER_DAYS,
    attemptRetentionDays: env.HOLDFAST_ATTEMPT_RETENTION_DAYS,
    rollupRetentionDays: env.HOLDFAST_ROLLUP_RETENTION_DAYS,
    uncertainEscalateAfterMs: env.HOLDFAST_UNCERTAIN_ESCALATE_MINUTES * 60_000,
    staleLockEscalateAfterMs: env.HOLDFAST_STALE_LOCK_ESCALATE_MINUTES * 60_000,
    defaultOwner: env.HOLDFAST_DEFAULT_OWNER,
    bulkRedriveStalledMs: env.HOLDFAST_BULK_REDRIVE_STALLED_SECONDS * 1_000,
  };
}

/**
 * Runs the due sweeps about every `intervalSeconds` until stopped; logs only the
 * passes that did something. The library's policy is the environment's
 * unless the caller passes one.
 */
export function startSweepLoop(options: {
  databaseUrl: string;
  intervalSeconds: number;
  settings: SweepSettings;
  policy?: CorePolicy;
  log: (line: string) => void;
}) {
  const connection = connectDatabase(options.databaseUrl, { maxConnections: 2 });
  const policy = options.policy ?? corePolicyFrom(getEnvironment());
  const clock = startDatabaseClock(() => connection.db);
  let running: Promise<void> | undefined;
  let stopped = false;

  const tick = () => {
    if (running || stopped) return; // a slow pass is not stacked on by the next tick
    const ctx: CoreContext = { db: connection.db, clock: clock.now, policy };
    running = runDueSweeps(ctx, options.settings)
      .then((reports) => {
        for (const line of describeSweeps(reports)) options.log(line);
      })
      .catch((error: unknown) => options.log(`Sweep failed: ${describeForLog(error)}`))
      // Alerts after the sweeps, so they see this tick's escalations; a failed sweep does not stop them.
      .then(() => runAlertPasses(ctx))
      .then((passes) => {
        for (const line of describeAlertPasses(passes)) options.log(line);
      })
      .catch((error: unknown) => options.log(`Alert pass failed: ${describeForLog(error)}`))
      .finally(() => {
        running = undefined;
      });
  };
  // Every instance on the database races for each bucket's lease. At a fixed phase the same instance
  // would win every bucket and do all the sweeping; a random point around the interval spreads the passes.
  let timer: NodeJS.Timeout | undefined;
  const tickLater = () => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        tick();
        tickLater();
      },
      options.intervalSeconds * 1_000 * (0.5 + Math.random()),
    );
  };
  // The first pass waits for the database's clock, so its leases and escalations are judged by it too.
  void clock.ready.then(() => {
    tick();
    tickLater();
  });

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      clock.stop();
      await running;
      await connection.close();
    },
  };
}

const DELIVERY_BATCH = 25;
const MAX_DELIVERY_ROUNDS = 20;
const DELIVERY_BUDGET_MS = 15_000;

export interface AlertPasses {
  evaluation: LeaseOutcome<AlertSweep>;
  delivery: DeliveryReport;
}

/**
 * One tick's alert work: the evaluation (leased per minute, so several
 * sweepers evaluate once) and then the outbox's due deliveries (every tick:
 * delivery claims its own rows, and a retry should not wait for the next
 * minute's bucket). Exported so a test can run a tick's alerts once.
 */
export async function runAlertPasses(
  ctx: CoreContext,
  options: { now?: Date; outbound?: OutboundOptions; publicUrl?: string } = {},
): Promise<AlertPasses> {
  const evaluation = await runAlertSweep(ctx, { now: options.now });
  const delivery: DeliveryReport = { delivered: 0, retrying: 0, failed: 0 };
  // A backlog (a burst of holds, a receiver back after an outage) drains a batch at a time; but a receiver
  // that answers slowly (each round may wait its 10 s timeout) must not hold the next sweeps back: no new
  // round starts after DELIVERY_BUDGET_MS, and what is left waits for the next tick.
  const startedAt = Date.now();
  for (let round = 0; round < MAX_DELIVERY_ROUNDS && Date.now() - startedAt < DELIVERY_BUDGET_MS; round++) {
    const batch = await deliverDueAlerts(ctx, { ...options, limit: DELIVERY_BATCH });
    delivery.delivered += batch.delivered;
    delivery.retrying += batch.retrying;
    delivery.failed += batch.failed;
    if (batch.delivered + batch.retrying + batch.failed < DELIVERY_BATCH) break;
  }
  return { evaluation, delivery };
}

/** One line per alert pass that changed something. */
export function describeAlertPasses({ evaluation, delivery }: AlertPasses): string[] {
  const lines: string[] = [];
  if (evaluation.ran) {
    const { fired, resolved, unreadableRules } = evaluation.value.evaluation;
    if (fired + resolved > 0) lines.push(`Alerts: ${fired} fired, ${resolved} resolved`);
    if (unreadableRules.length > 0) lines.push(`Alerts: unreadable thresholds, skipped: ${unreadableRules.join(', ')}`);
  }
  if (delivery.delivered + delivery.retrying + delivery.failed > 0) {
    lines.push(
      `Alert deliveries: ${delivery.delivered} delivered, ${delivery.retrying} to retry, ${delivery.failed} failed`,
    );
  }
  return lines;
}

/** One line per sweep pass that changed something. */
export function describeSweeps(reports: SweepReport[]): string[] {
  return reports
    .filter((report) => (report.result?.changed ?? 0) > 0)
    .map((report) => `Sweep ${report.job}: ${report.result?.summary}`);
}
