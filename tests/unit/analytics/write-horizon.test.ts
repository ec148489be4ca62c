import { describe, expect, it } from 'vitest';
import { fullTransactionId, parseSnapshot } from '../../../packages/engine/src/rollups/write-horizon';

describe("the rollup horizon's transaction ids", () => {
  it('reads xmin and xmax from a snapshot, with or without running ids', () => {
    expect(parseSnapshot('100:105:100,102')).toEqual({ xmin: 100n, xmax: 105n });
    expect(parseSnapshot('7:7:')).toEqual({ xmin: 7n, xmax: 7n });
    expect(() => parseSnapshot('nonsense')).toThrow(/not a pg_snapshot/);
  });

  it('widens a 32-bit id to the 64-bit one nearest the reference, across an epoch', () => {
    const epoch = 1n << 32n;
    // Within one epoch: behind the reference, equal to it, just ahead of it.
    expect(fullTransactionId(990n, 3n * epoch + 1_000n)).toBe(3n * epoch + 990n);
    expect(fullTransactionId(1_000n, 3n * epoch + 1_000n)).toBe(3n * epoch + 1_000n);
    expect(fullTransactionId(1_004n, 3n * epoch + 1_000n)).toBe(3n * epoch + 1_004n);
    // The reference has just wrapped into epoch 3; a transaction from the end of epoch 2 still runs.
    expect(fullTransactionId(epoch - 5n, 3n * epoch + 10n)).toBe(3n * epoch - 5n);
    // The reference is at the end of epoch 3; a transaction began just after it, in epoch 4.
    expect(fullTransactionId(2n, 4n * epoch - 3n)).toBe(4n * epoch + 2n);
  });
});
