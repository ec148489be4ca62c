import { describe, expect, it } from 'vitest';
import { readChange } from '@/app/(console)/overview/compare';
import { STALE_AFTER_MS, updatedAgo } from '@/app/(console)/overview/overview-freshness';

const attemptFigure = { fromAttempts: true };

describe('a headline figure against the previous window', () => {
  it('says "no earlier data" for an attempt figure when the previous window held no attempts', () => {
    expect(readChange({ now: 12, before: 0 }, { ...attemptFigure, previousWindowHadAttempts: false })).toEqual({
      kind: 'no-earlier-data',
    });
    // Even a figure that is 0 now: there is nothing to compare it with.
    expect(readChange({ now: 0, before: 0 }, { ...attemptFigure, previousWindowHadAttempts: false })).toEqual({
      kind: 'no-earlier-data',
    });
  });

  it('reads a measured 0 as a real 0 when the previous window did hold attempts', () => {
    // Retry spend 0 before (attempts, but none retried), 600 now: a real rise.
    expect(readChange({ now: 600, before: 0 }, { ...attemptFigure, previousWindowHadAttempts: true })).toEqual({
      kind: 'up',
      from: 0,
    });
    expect(readChange({ now: 1, before: 3 }, { ...attemptFigure, previousWindowHadAttempts: true })).toEqual({
      kind: 'down',
      from: 3,
    });
    expect(readChange({ now: 3, before: 3 }, { ...attemptFigure, previousWindowHadAttempts: true })).toEqual({
      kind: 'no-change',
    });
  });

  it('counts holds as they stood when the window began, so their 0 is real whatever the attempts', () => {
    expect(readChange({ now: 2, before: 0 }, { fromAttempts: false, previousWindowHadAttempts: false })).toEqual({
      kind: 'up',
      from: 0,
    });
  });

  it('shows a figure kept without history as it is now', () => {
    expect(readChange({ now: 4, before: null }, { fromAttempts: false, previousWindowHadAttempts: true })).toEqual({
      kind: 'now-only',
    });
  });
});

describe('how fresh the Overview is', () => {
  it('says how long ago it was updated, in seconds then minutes', () => {
    const at = 1_000_000;
    expect(updatedAgo(at, at + 500)).toBe('updated just now');
    expect(updatedAgo(at, at + 12_400)).toBe('updated 12 s ago');
    expect(updatedAgo(at, at + 180_000)).toBe('updated 3 min ago');
    expect(updatedAgo(at, at - 2_000)).toBe('updated just now');
  });

  it('calls figures stale after three missed refreshes', () => {
    expect(STALE_AFTER_MS).toBe(30_000);
  });
});
