import { describe, expect, it } from 'vitest';
import { planFromStoredSums, type Segment, STORED_SUMS_REACH_MS } from '../../../lib/rollups/segments';
import { windowSumRangesFor } from '../../../lib/rollups/window-sums';
import { resolveTimeWindow, timeWindowName } from '../../../lib/time-window';

const at = (iso: string) => new Date(iso);
const MINUTE = 60_000;
const FIVE_MINUTES = 5 * MINUTE;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const floorTo = (moment: number, unit: number) => Math.floor(moment / unit) * unit;
const describeSegments = (segments: Segment[]) =>
  segments.map(
    (segment) =>
      `${segment.sign === -1 ? '-' : ''}${segment.grain} ${segment.from.toISOString().slice(5, 16)}..${segment.to.toISOString().slice(5, 16)}`,
  );

/** The rollups' edges a pass at `moment` leaves: closed hours, and the open hour's closed five-minute buckets. */
const edgesOfPassAt = (moment: number) => ({
  rolledTo: new Date(floorTo(moment, HOUR)),
  fineRolledTo: new Date(floorTo(moment, FIVE_MINUTES)),
});

/**
 * Whether the signed segments add up to the window exactly: every stretch of
 * time between two boundaries is covered with a net weight of 1 inside the
 * window and 0 outside it.
 */
function netCoverageIsWindow(segments: Segment[], from: number, to: number): boolean {
  const cuts = [...new Set([from, to, ...segments.flatMap((s) => [s.from.getTime(), s.to.getTime()])])].sort(
    (a, b) => a - b,
  );
  for (let index = 0; index + 1 < cuts.length; index++) {
    const middle = (cuts[index]! + cuts[index + 1]!) / 2;
    const weight = segments
      .filter((s) => s.from.getTime() <= middle && middle < s.to.getTime())
      .reduce((sum, s) => sum + (s.sign ?? 1), 0);
    if (weight !== (middle >= from && middle < to ? 1 : 0)) return false;
  }
  return true;
}

describe('windowSumRangesFor', () => {
  it('stores the whole five-minute buckets of every named window and the window before it', () => {
    const now = at('2026-11-30T12:07:30Z');
    const ranges = windowSumRangesFor(now, at('2026-11-30T12:05:00Z'), at('2026-10-15T00:00:00Z')).map(
      (range) => `${range.from.toISOString().slice(5, 16)}..${range.to.toISOString().slice(5, 16)}`,
    );
    expect(ranges).toEqual([
      '11-30T11:10..11-30T12:05',
      '11-30T10:10..11-30T11:05',
      '11-29T12:10..11-30T12:05',
      '11-28T12:10..11-29T12:05',
      '11-23T12:10..11-30T12:05',
      '11-16T12:10..11-23T12:05',
      '10-31T12:10..11-30T12:05',
      // The 30 days before start past the retention floor (October 15th): left out.
    ]);
  });
});

describe('planFromStoredSums', () => {
  const pass = at('2026-11-30T12:07:30Z').getTime();
  const stored = windowSumRangesFor(new Date(pass), new Date(floorTo(pass, FIVE_MINUTES)), new Date(0));

  it('reads the range a pass stored a few minutes before: its bucket passed subtracted, the minutes after it raw', () => {
    const now = new Date(pass + 4 * MINUTE); // 12:11:30: the window starts at 12:11:30 yesterday
    const window = { label: 'now', ...resolveTimeWindow('24h', now) };
    expect(describeSegments(planFromStoredSums(window, edgesOfPassAt(pass), stored)!)).toEqual([
      '-5min 11-29T12:10..11-29T12:15',
      'raw 11-29T12:11..11-29T12:15',
      'sums 11-29T12:10..11-30T12:05',
      'raw 11-30T12:05..11-30T12:11',
    ]);
  });

  it('adds what a window holds before the range, and subtracts the bucket the range holds past its end', () => {
    const now = new Date(pass - 4 * MINUTE - 30_000); // 12:03, a reader whose clock is behind the pass's
    const current = resolveTimeWindow('24h', now);
    const before = { label: 'before', from: new Date(current.from.getTime() - DAY), to: current.from };
    expect(describeSegments(planFromStoredSums(before, edgesOfPassAt(pass), stored)!)).toEqual([
      'raw 11-28T12:03..11-28T12:05',
      '5min 11-28T12:05..11-28T12:10',
      'sums 11-28T12:10..11-29T12:05',
      '-5min 11-29T12:00..11-29T12:05',
      'raw 11-29T12:00..11-29T12:03',
    ]);
  });

  it('serves no window whose ends are further than the reach from every stored range', () => {
    const late = new Date(pass + STORED_SUMS_REACH_MS + 5 * MINUTE);
    expect(planFromStoredSums({ label: 'now', ...resolveTimeWindow('24h', late) }, edgesOfPassAt(pass), stored)).toBe(
      null,
    );
    // A window of another length is not served by a range of the named windows.
    const odd = { label: 'odd', from: new Date(pass - 3 * HOUR), to: new Date(pass) };
    expect(planFromStoredSums(odd, edgesOfPassAt(pass), stored)).toBe(null);
  });

  it('adds up to exactly the window for 2,000 random readers and passes, subtracting only whole rolled buckets', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 48_271) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    let served = 0;
    for (let run = 0; run < 2_000; run++) {
      const passAt = at('2026-11-30T00:00:00Z').getTime() + Math.floor(random() * 3 * DAY);
      const fineEdge = floorTo(passAt, FIVE_MINUTES);
      const ranges = windowSumRangesFor(new Date(passAt), new Date(fineEdge), new Date(0));
      // Readers from a little before the pass (another instance's clock) to past the reach.
      const readAt = passAt + Math.floor((random() - 0.1) * (STORED_SUMS_REACH_MS + 10 * MINUTE));
      const name = timeWindowName.options[Math.floor(random() * timeWindowName.options.length)]!;
      const current = resolveTimeWindow(name, new Date(readAt));
      const length = current.to.getTime() - current.from.getTime();
      const window =
        random() < 0.5
          ? { label: 'now', ...current }
          : { label: 'before', from: new Date(current.from.getTime() - length), to: current.from };
      const segments = planFromStoredSums(window, edgesOfPassAt(passAt), ranges);
      // Passes run every minute: a reader up to ten minutes after one is always served.
      if (readAt >= passAt && readAt - passAt <= 10 * MINUTE) expect(segments, `run ${run}`).not.toBe(null);
      if (segments === null) continue;
      served++;
      expect(netCoverageIsWindow(segments, window.from.getTime(), window.to.getTime()), `run ${run}`).toBe(true);
      const sums = segments.filter((segment) => segment.grain === 'sums');
      expect(sums).toHaveLength(1);
      for (const subtracted of segments.filter((segment) => segment.sign === -1)) {
        expect(subtracted.grain).toBe('5min');
        expect(subtracted.from.getTime() % FIVE_MINUTES).toBe(0);
        expect(subtracted.to.getTime() % FIVE_MINUTES).toBe(0);
        expect(subtracted.from >= sums[0]!.from && subtracted.to <= sums[0]!.to).toBe(true);
      }
      for (const raw of segments.filter((segment) => segment.grain === 'raw')) {
        // Raw only for minutes a pass had not rolled: cut buckets, and after the pass's five-minute edge.
        expect(raw.to.getTime() - raw.from.getTime() < FIVE_MINUTES || raw.from.getTime() >= fineEdge).toBe(true);
      }
    }
    // The rest were readers past the reach (or before the pass by more than a bucket).
    expect(served).toBeGreaterThan(1_000);
  });
});
