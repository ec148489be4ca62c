import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';

/**
 * The database's clock, read without a round trip per call. Keys, locks and
 * leases expire by the database's now(); where the library decides by time in
 * JavaScript (deadlines, redrive cool-downs, retry pools' windows) it should
 * agree with them even when the application's machine clock drifts. So the
 * offset between the two clocks is sampled (`select clock_timestamp()`, the
 * round trip halved), and now() is the machine's time plus that offset.
 * Resampled every minute; until the first sample answers, the offset is 0.
 */
export interface DatabaseClock {
  now: () => Date;
  /** Samples the offset now (the first sample is taken at start). */
  sync: () => Promise<void>;
  /** Settles when the first sample has answered (or failed): await it before the first decision by time. */
  ready: Promise<void>;
  /** Milliseconds the database's clock is ahead of this machine's (negative: behind). */
  offsetMs: () => number;
  stop: () => void;
}

export function startDatabaseClock(
  /** Where to sample: a function, so a pool replaced after an outage is followed. */
  readDb: () => Executor,
  options: { resampleEveryMs?: number; machineNow?: () => number } = {},
): DatabaseClock {
  const machineNow = options.machineNow ?? Date.now;
  let offset = 0;
  const sync = async () => {
    const sentAt = machineNow();
    const [row] = await readDb().execute<{ ms: number }>(
      sql`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`,
    );
    const receivedAt = machineNow();
    if (!row) return;
    offset = Number(row.ms) - (sentAt + (receivedAt - sentAt) / 2);
  };
  // A failed sample keeps the last offset: a database that is down is answered elsewhere (503).
  const sample = () => sync().catch(() => undefined);
  const ready = sample();
  const timer = setInterval(() => void sample(), options.resampleEveryMs ?? 60_000);
  timer.unref();
  return {
    now: () => new Date(machineNow() + offset),
    sync,
    ready,
    offsetMs: () => offset,
    stop: () => clearInterval(timer),
  };
}
