import { and, eq, lte, or, sql } from 'drizzle-orm';
import { leases } from '../../db/schema';
import type { CoreContext } from '../kernel/context';
import { isGoneInstance } from './instance-name';
import {
  releaseRenewableLeaseInput,
  renewableLeaseInput,
  type ReleaseRenewableLeaseInput,
  type RenewableLeaseInput,
} from './renewable-lease-input';
import { parseInput } from '@holdfast/protocol/validation';

export * from './renewable-lease-input';

/**
 * A renewable lease is a row of the sweeps' `leases` table under this bucket:
 * one row per name, never completed, so the sweep alert and the metrics (which
 * read completed passes) leave it alone and the retention sweep never deletes it.
 */
export const RENEWABLE_BUCKET = 'renewable';

const timeOf = (at: Date | undefined) => (at ? sql`${at.toISOString()}::timestamptz` : sql`now()`);
const expiryOf = (at: Date | undefined, ttlMs: number) => sql`${timeOf(at)} + ${`${ttlMs} milliseconds`}::interval`;

/**
 * Takes the lease if it is free (never taken, released, or lapsed because its
 * holder stopped renewing), or renews it if this holder has it already. True
 * when the caller holds it now. The primary key decides a race: of holders
 * taking at once, exactly one gets it.
 */
export async function takeRenewableLease(ctx: CoreContext, input: RenewableLeaseInput): Promise<boolean> {
  const { name, holder, ttlMs, at, replacing } = parseInput(renewableLeaseInput, input);
  const [row] = await ctx.db
    .insert(leases)
    .values({ job: name, bucket: RENEWABLE_BUCKET, holder, acquiredAt: timeOf(at), expiresAt: expiryOf(at, ttlMs) })
    .onConflictDoUpdate({
      target: [leases.job, leases.bucket],
      set: {
        holder,
        // acquired_at says since when the current holder has had it, across its renewals.
        acquiredAt: sql`case when leases.holder = excluded.holder then leases.acquired_at else excluded.acquired_at end`,
        expiresAt: sql`excluded.expires_at`,
      },
      setWhere: or(
        eq(leases.holder, holder),
        lte(leases.expiresAt, timeOf(at)),
        replacing === undefined ? undefined : eq(leases.holder, replacing),
      ),
    })
    .returning({ holder: leases.holder });
  return row?.holder === holder;
}

/**
 * Extends the lease by its TTL from now, if the caller still holds it; false
 * when another holder has taken it over, so the caller must stop what the
 * lease guards. A holder whose lease lapsed but which nobody took yet keeps it:
 * the row still names it, so it is still the only one.
 */
export async function renewRenewableLease(ctx: CoreContext, input: RenewableLeaseInput): Promise<boolean> {
  const { name, holder, ttlMs, at } = parseInput(renewableLeaseInput, input);
  const renewed = await ctx.db
    .update(leases)
    .set({ expiresAt: expiryOf(at, ttlMs) })
    .where(and(eq(leases.job, name), eq(leases.bucket, RENEWABLE_BUCKET), eq(leases.holder, holder)))
    .returning({ holder: leases.holder });
  return renewed.length > 0;
}

/** Lets the lease go at once (a clean stop), so another instance need not wait out the TTL. */
export async function releaseRenewableLease(ctx: CoreContext, input: ReleaseRenewableLeaseInput): Promise<void> {
  const { name, holder, at } = parseInput(releaseRenewableLeaseInput, input);
  await ctx.db
    .update(leases)
    .set({ expiresAt: timeOf(at) })
    .where(and(eq(leases.job, name), eq(leases.bucket, RENEWABLE_BUCKET), eq(leases.holder, holder)));
}

export interface RenewableLeaseState {
  holder: string;
  acquiredAt: Date;
  expiresAt: Date;
  /** False once it lapsed or was released: the next instance to check takes it. */
  live: boolean;
}

/** Who holds the lease, for operators and tests; undefined when it was never taken. */
export async function readRenewableLease(
  ctx: CoreContext,
  name: string,
  at?: Date,
): Promise<RenewableLeaseState | undefined> {
  const [row] = await ctx.db
    .select({
      holder: leases.holder,
      acquiredAt: leases.acquiredAt,
      expiresAt: leases.expiresAt,
      live: sql<boolean>`${leases.expiresAt} > ${timeOf(at)}`,
    })
    .from(leases)
    .where(and(eq(leases.job, name), eq(leases.bucket, RENEWABLE_BUCKET)));
  return row;
}

export interface KeptLease {
  /** Whether this holder had the lease at its last check. */
  readonly holding: boolean;
  /** Stops checking and, if held, releases the lease. Stop what it guards first. */
  stop: () => Promise<void>;
}

/**
 * Keeps trying for the lease and, once held, keeps renewing it: every
 * `checkEveryMs` (a third of the TTL by default, so two renewals may fail
 * before it lapses) a holder renews and the others try to take it. `onChange`
 * is told the first answer and every change after, without being
 * awaited (starting what the lease guards may take longer than a renewal
 * period): `true` when this holder took it, `false` when another has it or
 * took it over. A renewal that cannot reach the database counts as lost once
 * the TTL has passed since the last confirmed one: by then another may hold it.
 * A holder found to be a crashed process of this machine (isGoneInstance) is
 * replaced at once rather than after its TTL.
 */
export function keepRenewableLease(
  ctx: CoreContext,
  options: {
    name: string;
    holder: string;
    ttlMs: number;
    checkEveryMs?: number;
    onChange: (holding: boolean) => void;
    onError?: (error: unknown) => void;
  },
): KeptLease {
  const { name, holder, ttlMs, onChange } = options;
  const checkEveryMs = options.checkEveryMs ?? Math.max(50, Math.floor(ttlMs / 3));
  let holding: boolean | undefined;
  let confirmedUntil = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> = Promise.resolve();

  const settle = (held: boolean) => {
    if (held === holding) return;
    holding = held;
    onChange(held);
  };

  const check = async () => {
    const askedAt = Date.now();
    try {
      const input = { name, holder, ttlMs };
      if (holding) {
        const renewed = await renewRenewableLease(ctx, input);
        if (renewed) confirmedUntil = askedAt + ttlMs;
        settle(renewed);
        return;
      }
      let taken = await takeRenewableLease(ctx, input);
      if (!taken) {
        // A holder of this machine that crashed (a restart after a kill) need not be waited out.
        const current = await readRenewableLease(ctx, name);
        if (current?.live && isGoneInstance(current.holder))
          taken = await takeRenewableLease(ctx, { ...input, replacing: current.holder });
      }
      if (taken) confirmedUntil = askedAt + ttlMs;
      settle(taken);
    } catch (error) {
      // Unanswered, a holder keeps going until its last confirmed renewal runs out: by then another may hold it.
      options.onError?.(error);
      if (holding && Date.now() >= confirmedUntil) settle(false);
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      checking = check().finally(schedule);
    }, checkEveryMs);
  };
  checking = check().finally(schedule);

  return {
    get holding() {
      return holding === true;
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await checking;
      if (holding) await releaseRenewableLease(ctx, { name, holder });
      holding = false;
    },
  };
}
