import { describe, expect, it } from 'vitest';
import { rotateRounds, rotationOf } from '../../../scripts/lib/bench-compare';

describe('rotating benchmark rounds', () => {
  it('starts each round with the next side, so every side goes first in turn', () => {
    expect([0, 1, 2, 3, 4].map((round) => rotationOf(4, round))).toEqual([
      [0, 1, 2, 3],
      [1, 2, 3, 0],
      [2, 3, 0, 1],
      [3, 0, 1, 2],
      [0, 1, 2, 3],
    ]);
  });

  it('warms every side up once, discards that round, and returns the measured rounds per side', async () => {
    const calls: string[] = [];
    const side = (name: string) => async (seconds: number) => {
      calls.push(`${name}:${seconds}`);
      return `${name}@${calls.length}`;
    };
    const rounds = await rotateRounds([side('a'), side('b'), side('c')], { rounds: 3, seconds: 4, warmUpSeconds: 2 });
    expect(calls).toEqual(['a:2', 'b:2', 'c:2', 'a:4', 'b:4', 'c:4', 'b:4', 'c:4', 'a:4', 'c:4', 'a:4', 'b:4']);
    expect(rounds).toEqual([
      ['a@4', 'a@9', 'a@11'],
      ['b@5', 'b@7', 'b@12'],
      ['c@6', 'c@8', 'c@10'],
    ]);
  });
});
