import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { INSTANCE_NAME, keepRenewableLease } from '../../../packages/engine/src/core';
import {
  readRenewableLease,
  releaseRenewableLease,
  renewRenewableLease,
  takeRenewableLease,
} from '../../../packages/engine/src/core/leases/renewable-lease';
import { connectDatabase } from '../../../packages/engine/src/db/client';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const ctx = () => ({ db: database.db });

/** Times are passed in: the lease is judged at these moments, so no test waits out a TTL. */
const t0 = new Date('2031-03-01T12:00:00Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const TTL = 30_000;

describe('renewable leases', () => {
  it('goes to exactly one of many holders taking it at once', async () => {
    const name = `lease-${randomUUID()}`;
    const pool = connectDatabase(database.url, { maxConnections: 12 });
    try {
      const holders = Array.from({ length: 12 }, (_, index) => `instance-${index}`);
      const taken = await Promise.all(
        holders.map((holder) => takeRenewableLease({ db: pool.db }, { name, holder, ttlMs: TTL, at: t0 })),
      );
      expect(taken.filter(Boolean)).toHaveLength(1);
      const winner = holders[taken.indexOf(true)];
      expect(await readRenewableLease(ctx(), name, t0)).toMatchObject({ holder: winner, live: true });
    } finally {
      await pool.close();
    }
  });

  it('stays with a holder that renews, past the first TTL', async () => {
    const name = `lease-${randomUUID()}`;
    expect(await takeRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: t0 })).toBe(true);
    expect(await renewRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: later(20_000) })).toBe(true);
    // Past the first expiry, within the renewed one: still a's.
    expect(await takeRenewableLease(ctx(), { name, holder: 'b', ttlMs: TTL, at: later(40_000) })).toBe(false);
    // Taking it again is a renewal for its holder, not a new tenure.
    expect(await takeRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: later(45_000) })).toBe(true);
    expect(await readRenewableLease(ctx(), name, later(45_000))).toMatchObject({
      holder: 'a',
      acquiredAt: t0,
      expiresAt: later(75_000),
      live: true,
    });
  });

  it('is taken over once its holder stops renewing, and the old holder learns so when it renews next', async () => {
    const name = `lease-${randomUUID()}`;
    expect(await takeRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: t0 })).toBe(true);
    expect(await takeRenewableLease(ctx(), { name, holder: 'b', ttlMs: TTL, at: later(TTL - 1) })).toBe(false);
    expect(await takeRenewableLease(ctx(), { name, holder: 'b', ttlMs: TTL, at: later(TTL) })).toBe(true);
    // a was paused (not dead) and comes back: its renewal is refused, so it stops; b keeps the lease.
    expect(await renewRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: later(TTL + 1) })).toBe(false);
    expect(await readRenewableLease(ctx(), name, later(TTL + 1))).toMatchObject({
      holder: 'b',
      acquiredAt: later(TTL),
      live: true,
    });
  });

  it('stays with a holder whose lease lapsed while nobody took it', async () => {
    const name = `lease-${randomUUID()}`;
    expect(await takeRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: t0 })).toBe(true);
    expect(await renewRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: later(2 * TTL) })).toBe(true);
    expect(await takeRenewableLease(ctx(), { name, holder: 'b', ttlMs: TTL, at: later(2 * TTL + 1) })).toBe(false);
  });

  it('is free at once when its holder lets go, and only its holder may', async () => {
    const name = `lease-${randomUUID()}`;
    expect(await takeRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: t0 })).toBe(true);
    await releaseRenewableLease(ctx(), { name, holder: 'b', at: later(1_000) });
    expect(await takeRenewableLease(ctx(), { name, holder: 'b', ttlMs: TTL, at: later(1_000) })).toBe(false);
    await releaseRenewableLease(ctx(), { name, holder: 'a', at: later(1_000) });
    expect(await readRenewableLease(ctx(), name, later(1_000))).toMatchObject({ holder: 'a', live: false });
    expect(await takeRenewableLease(ctx(), { name, holder: 'b', ttlMs: TTL, at: later(1_000) })).toBe(true);
  });

  it('is taken before its TTL only from the holder named as gone', async () => {
    const name = `lease-${randomUUID()}`;
    expect(await takeRenewableLease(ctx(), { name, holder: 'crashed', ttlMs: TTL, at: t0 })).toBe(true);
    expect(
      await takeRenewableLease(ctx(), { name, holder: 'b', ttlMs: TTL, at: later(1_000), replacing: 'someone-else' }),
    ).toBe(false);
    expect(
      await takeRenewableLease(ctx(), { name, holder: 'b', ttlMs: TTL, at: later(1_000), replacing: 'crashed' }),
    ).toBe(true);
  });

  it('never shows in the sweeps: it is not a completed pass, and is kept', async () => {
    const name = `lease-${randomUUID()}`;
    await takeRenewableLease(ctx(), { name, holder: 'a', ttlMs: TTL, at: t0 });
    const [row] = await database.sql`select bucket, completed_at from leases where job = ${name}`;
    expect(row).toEqual({ bucket: 'renewable', completed_at: null });
  });
});

/** Polls until `condition` holds; fails after `timeoutMs`. */
async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('keepRenewableLease', () => {
  it('runs on one holder, renews past its TTL, and hands over when the holder lets go', async () => {
    const name = `kept-${randomUUID()}`;
    const changes: string[] = [];
    // Checks every 100 ms against a 3 s TTL: a holder loses the lease only if its event loop or the
    // database stalls for nearly 3 s, which a loaded CI machine can reach at 600 ms but not at this.
    const keep = (holder: string) =>
      keepRenewableLease(ctx(), {
        name,
        holder,
        ttlMs: 3_000,
        checkEveryMs: 100,
        onChange: (holding) => changes.push(`${holder}:${holding}`),
      });
    const first = keep('first');
    await waitFor(() => first.holding);
    const second = keep('second');
    await waitFor(() => changes.includes('second:false'));
    // Past the TTL by the database's clock: the first has renewed (it still holds), the second has kept
    // checking and found it taken.
    const until = (await database.sql`select now() + interval '3500 milliseconds' as at`)[0]!.at as Date;
    await waitFor(async () => (await database.sql`select now() > ${until} as past`)[0]!.past === true, 10_000);
    expect(first.holding).toBe(true);
    expect(second.holding).toBe(false);

    await first.stop();
    await waitFor(() => second.holding);
    expect(changes).toEqual(['first:true', 'second:false', 'second:true']);
    await second.stop();
    expect((await readRenewableLease(ctx(), name))?.live).toBe(false);
  });

  it('takes over from a holder that died, and tells a holder that lost it', async () => {
    const name = `kept-${randomUUID()}`;
    // A holder that took the lease and then died: it never renews, so its 500 ms run out by the database's clock.
    expect(await takeRenewableLease(ctx(), { name, holder: 'dead', ttlMs: 500 })).toBe(true);
    const changes: boolean[] = [];
    const survivor = keepRenewableLease(ctx(), {
      name,
      holder: 'survivor',
      ttlMs: 600,
      onChange: (holding) => changes.push(holding),
    });
    await waitFor(() => survivor.holding);
    expect(changes).toEqual([false, true]);

    // Someone else takes it over (as after this process was paused past its TTL): the next renewal says so.
    await database.sql`update leases set holder = 'usurper' where job = ${name}`;
    await waitFor(() => !survivor.holding);
    expect(changes).toEqual([false, true, false]);
    await survivor.stop();
    expect((await readRenewableLease(ctx(), name))?.holder).toBe('usurper');
  });

  it('takes over at once from an earlier process of this machine, without waiting out its TTL', async () => {
    const name = `kept-${randomUUID()}`;
    // This process's pid under another tag: the process that had it before (a restarted container) is gone.
    const crashed = `${hostname()}:${process.pid}:0ld0ne`;
    expect(await takeRenewableLease(ctx(), { name, holder: crashed, ttlMs: 3_600_000 })).toBe(true);
    const changes: boolean[] = [];
    const restarted = keepRenewableLease(ctx(), {
      name,
      holder: INSTANCE_NAME,
      ttlMs: 600,
      onChange: (holding) => changes.push(holding),
    });
    await waitFor(() => changes.length > 0);
    expect(changes).toEqual([true]);
    await restarted.stop();
  });
});
