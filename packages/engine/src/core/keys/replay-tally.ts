import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { arrayParam } from '../kernel/sql-arrays';

/**
 * Counts the replays beginStep answers from a completed key without claiming it (its fast path), and adds them to
 * the keys' `claim_calls` in one statement at most once a second. So a repeat of a completed step commits nothing
 * of its own, and `claim_calls` still counts every call (the demo's "duplicate deliveries absorbed").
 *
 * A count is a statistic, never a decision: one still pending when the process stops, or whose database handle
 * was a transaction that has ended, is lost. `flushReplayTallies` writes the pending counts now (a shutdown, or a
 * test reading them).
 */
const FLUSH_AFTER_MS = 1_000;
const TALLIES = Symbol.for('holdfast.replayTallies');

interface Tallies {
  pending: Map<Executor, Map<string, number>>;
  scheduled: ReturnType<typeof setTimeout> | undefined;
}

/**
 * One set of tallies per process, kept on globalThis: the dashboard's bundled route handlers load their own copy of
 * this module, and the server's shutdown (scripts/start.ts) must flush what they counted too.
 */
const tallies: Tallies = ((globalThis as { [TALLIES]?: Tallies })[TALLIES] ??= {
  pending: new Map(),
  scheduled: undefined,
});

export function tallyReplay(db: Executor, key: string): void {
  let keys = tallies.pending.get(db);
  if (!keys) {
    keys = new Map();
    tallies.pending.set(db, keys);
  }
  keys.set(key, (keys.get(key) ?? 0) + 1);
  if (tallies.scheduled === undefined) {
    tallies.scheduled = setTimeout(() => void flushReplayTallies(), FLUSH_AFTER_MS);
    // A pending count must not keep a process alive that is otherwise done.
    tallies.scheduled.unref?.();
  }
}

export async function flushReplayTallies(): Promise<void> {
  if (tallies.scheduled !== undefined) clearTimeout(tallies.scheduled);
  tallies.scheduled = undefined;
  const batches = [...tallies.pending];
  tallies.pending.clear();
  for (const [db, keys] of batches) {
    try {
      await db.execute(sql`
        update idempotency_keys set claim_calls = claim_calls + replays.calls
        from unnest(${arrayParam([...keys.keys()], 'text')}, ${arrayParam([...keys.values()], 'int')}) as replays(key, calls)
        where idempotency_keys.key = replays.key`);
    } catch {
      // See above: the replays were answered; only their count is lost.
    }
  }
}
