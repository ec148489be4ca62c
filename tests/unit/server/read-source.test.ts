import { describe, expect, it } from 'vitest';
import { decodeReadSource, encodeReadSource, readNotice } from '../../../lib/server/read-source/notice';
import {
  chooseReadSource,
  parseLsn,
  type ReplicaFacts,
  replicaLagSeconds,
} from '../../../lib/server/read-source/replica';

/** A connected standby that has replayed all it received, its last commit 40 s ago. */
const facts = (overrides: Partial<ReplicaFacts> = {}): ReplicaFacts => ({
  inRecovery: true,
  streaming: true,
  receiveLsn: '0/3000200',
  replayLsn: '0/3000200',
  replayAgeSeconds: 40,
  ...overrides,
});
const reachable = (overrides: Partial<ReplicaFacts> = {}) => ({ reachable: true as const, facts: facts(overrides) });

describe('parseLsn', () => {
  it('orders WAL positions across the high word', () => {
    expect(parseLsn('0/3000200')).toBe(0x3000200n);
    expect(parseLsn('16/B374D848')! > parseLsn('15/FFFFFFFF')!).toBe(true);
  });

  it('answers null for anything that is not a position', () => {
    for (const text of [null, undefined, '', 'unknown', '0/', '/1', '0/3000200x', '123456789/0']) {
      expect(parseLsn(text)).toBeNull();
    }
  });
});

describe('replicaLagSeconds', () => {
  it('is 0 on a server that is not in recovery', () => {
    expect(replicaLagSeconds(facts({ inRecovery: false, replayAgeSeconds: null, replayLsn: null }))).toBe(0);
  });

  it('is 0 when everything received is replayed, however old the last commit (a quiet primary)', () => {
    expect(replicaLagSeconds(facts({ replayAgeSeconds: 3_000 }))).toBe(0);
  });

  it('is the age of the last replayed commit while WAL waits to be replayed', () => {
    expect(replicaLagSeconds(facts({ receiveLsn: '0/3000900', replayAgeSeconds: 12.5 }))).toBe(12.5);
  });

  it('judges a standby cut off from its primary by that age: it cannot know what it misses', () => {
    expect(replicaLagSeconds(facts({ streaming: false, replayAgeSeconds: 40 }))).toBe(40);
    expect(replicaLagSeconds(facts({ streaming: false, replayAgeSeconds: null }))).toBeNull();
  });

  it('never answers a negative lag (clocks a little apart)', () => {
    expect(replicaLagSeconds(facts({ receiveLsn: '0/3000900', replayAgeSeconds: -0.3 }))).toBe(0);
  });
});

describe('chooseReadSource', () => {
  it('reads the primary when no replica is configured, or it did not answer', () => {
    expect(chooseReadSource({ sample: undefined, maxLagSeconds: 30 })).toEqual({
      from: 'primary',
      reason: 'no_replica',
    });
    expect(chooseReadSource({ sample: { reachable: false }, maxLagSeconds: 30 })).toEqual({
      from: 'primary',
      reason: 'unreachable',
    });
  });

  it('reads the replica within the limit, the primary past it or when the lag is unknown', () => {
    const lagging = (age: number | null) => reachable({ receiveLsn: '0/3000900', replayAgeSeconds: age });
    expect(chooseReadSource({ sample: lagging(30), maxLagSeconds: 30 })).toEqual({ from: 'replica', lagSeconds: 30 });
    expect(chooseReadSource({ sample: lagging(31), maxLagSeconds: 30 })).toEqual({
      from: 'primary',
      reason: 'lagging',
      lagSeconds: 31,
      limitSeconds: 30,
    });
    expect(chooseReadSource({ sample: lagging(null), maxLagSeconds: 30 })).toMatchObject({
      from: 'primary',
      reason: 'lagging',
      lagSeconds: null,
    });
  });

  it('after this browser wrote, reads the primary until the replica has replayed past the write', () => {
    const sample = reachable({ receiveLsn: '0/3000900', replayLsn: '0/3000200', replayAgeSeconds: 2 });
    expect(chooseReadSource({ sample, maxLagSeconds: 30, ownWriteLsn: '0/3000800' })).toEqual({
      from: 'primary',
      reason: 'own_write',
    });
    expect(chooseReadSource({ sample, maxLagSeconds: 30, ownWriteLsn: '0/3000200' })).toEqual({
      from: 'replica',
      lagSeconds: 2,
    });
    expect(chooseReadSource({ sample, maxLagSeconds: 30, ownWriteLsn: '0/3000100' })).toMatchObject({
      from: 'replica',
    });
  });

  it('reads the primary after a write whose position is unknown; a primary given as replica has every write', () => {
    expect(chooseReadSource({ sample: reachable(), maxLagSeconds: 30, ownWriteLsn: 'unknown' })).toMatchObject({
      from: 'primary',
      reason: 'own_write',
    });
    const notInRecovery = reachable({ inRecovery: false, replayLsn: null, receiveLsn: null });
    expect(chooseReadSource({ sample: notInRecovery, maxLagSeconds: 30, ownWriteLsn: '0/3000800' })).toEqual({
      from: 'replica',
      lagSeconds: 0,
    });
  });
});

describe('the read source on the wire and on the page', () => {
  it('survives the header round trip; a foreign value reads as none', () => {
    const source = { from: 'primary', reason: 'lagging', lagSeconds: 45, limitSeconds: 30 } as const;
    expect(decodeReadSource(encodeReadSource(source))).toEqual(source);
    for (const value of [null, '', 'replica', '{"from":"elsewhere"}', '{"from":"replica"}', 'null']) {
      expect(decodeReadSource(value)).toBeUndefined();
    }
  });

  it('says nothing for a current replica, no replica, or the primary after your own write', () => {
    expect(readNotice({ from: 'replica', lagSeconds: 0.4 })).toBeUndefined();
    expect(readNotice({ from: 'primary', reason: 'no_replica' })).toBeUndefined();
    expect(readNotice({ from: 'primary', reason: 'own_write' })).toBeUndefined();
    expect(readNotice({ from: 'primary', reason: 'not_on_replica' })).toBeUndefined();
    expect(readNotice(undefined)).toBeUndefined();
  });

  it('says how old a lagging replica’s figures are, and why the primary answered', () => {
    expect(readNotice({ from: 'replica', lagSeconds: 12.7 })).toEqual({
      kind: 'lag',
      text: 'Figures as of 12 s ago: read from a replica that is behind the primary database.',
    });
    expect(readNotice({ from: 'replica', lagSeconds: 600 })?.text).toMatch(/^Figures as of 10 min ago/);
    expect(readNotice({ from: 'primary', reason: 'unreachable' })).toEqual({
      kind: 'fallback',
      text: 'The read replica is not answering: this page is read from the primary database.',
    });
    expect(readNotice({ from: 'primary', reason: 'lagging', lagSeconds: 45, limitSeconds: 30 })?.text).toBe(
      'The read replica is 45 s behind (the limit is 30 s): this page is read from the primary database.',
    );
    expect(readNotice({ from: 'primary', reason: 'lagging', lagSeconds: null, limitSeconds: 30 })?.text).toBe(
      'The read replica cannot say how far behind it is (the limit is 30 s): this page is read from the primary database.',
    );
  });
});
