import { describe, expect, it } from 'vitest';
import { planSegments, type Segment, substituteStoredSpans } from '../../../packages/engine/src/rollups/segments';
import { spansFor } from '../../../packages/engine/src/rollups/spans';
import { resolveTimeWindow } from '@holdfast/protocol/time-window';

const at = (iso: string) => new Date(iso);
/** Hourly rollups up to `rolledTo`, no five-minute ones. */
const hoursTo = (rolledTo: Date | null) => ({ rolledTo, fineRolledTo: null });
const FIVE_MINUTES = 300_000;
const describeSegments = (segments: Segment[]) =>
  segments.map(
    (segment) =>
      `${segment.grain} ${segment.from.toISOString().slice(5, 16)}..${segment.to.toISOString().slice(5, 16)}`,
  );

/** Total milliseconds covered, and whether segments tile the window without gaps or overlaps. */
function tiles(segments: Segment[], from: Date, to: Date): boolean {
  const sorted = [...segments].sort((a, b) => a.from.getTime() - b.from.getTime());
  let cursor = from.getTime();
  for (const segment of sorted) {
    if (segment.from.getTime() !== cursor) return false;
    cursor = segment.to.getTime();
  }
  return cursor === to.getTime();
}

describe('planSegments', () => {
  it('reads everything raw when nothing is rolled up', () => {
    const window = { label: 'w', from: at('2026-11-01T10:30:00Z'), to: at('2026-11-03T10:30:00Z') };
    expect(describeSegments(planSegments([window], hoursTo(null)))).toEqual(['raw 11-01T10:30..11-03T10:30']);
  });

  it('splits a window into a raw head, hours, whole days, hours and a raw tail', () => {
    const window = { label: 'w', from: at('2026-11-01T10:30:00Z'), to: at('2026-11-05T09:15:00Z') };
    const segments = planSegments([window], hoursTo(at('2026-11-05T08:00:00Z')));
    expect(describeSegments(segments)).toEqual([
      'raw 11-01T10:30..11-01T11:00',
      'hour 11-01T11:00..11-02T00:00',
      'day 11-02T00:00..11-05T00:00',
      'hour 11-05T00:00..11-05T08:00',
      'raw 11-05T08:00..11-05T09:15',
    ]);
    expect(tiles(segments, window.from, window.to)).toBe(true);
  });

  it('keeps days out for callers that group by hour', () => {
    const window = { label: 'w', from: at('2026-11-01T00:00:00Z'), to: at('2026-11-04T00:00:00Z') };
    expect(describeSegments(planSegments([window], hoursTo(at('2026-11-10T00:00:00Z')), 'hour'))).toEqual([
      'hour 11-01T00:00..11-04T00:00',
    ]);
  });

  it('stays raw for a window inside one hour or past the rollups', () => {
    expect(
      planSegments(
        [{ label: 'w', from: at('2026-11-01T10:10:00Z'), to: at('2026-11-01T10:50:00Z') }],
        hoursTo(at('2026-11-02T00:00:00Z')),
      ),
    ).toMatchObject([{ grain: 'raw' }]);
    expect(
      planSegments(
        [{ label: 'w', from: at('2026-11-03T00:00:00Z'), to: at('2026-11-04T00:00:00Z') }],
        hoursTo(at('2026-11-02T00:00:00Z')),
      ),
    ).toMatchObject([{ grain: 'raw' }]);
  });

  it('tiles random windows exactly, and labels each segment with its window', () => {
    const base = at('2026-11-01T00:00:00Z').getTime();
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 500; trial += 1) {
      const from = new Date(base + Math.floor(random() * 10 * 86_400_000));
      const to = new Date(from.getTime() + Math.floor(random() * 10 * 86_400_000) + 1);
      const rolledTo = new Date(base + Math.floor(random() * 24 * 24) * 3_600_000);
      const segments = planSegments([{ label: `t${trial}`, from, to }], hoursTo(rolledTo));
      expect(tiles(segments, from, to)).toBe(true);
      for (const segment of segments) {
        expect(segment.label).toBe(`t${trial}`);
        if (segment.grain !== 'raw') expect(segment.to.getTime()).toBeLessThanOrEqual(rolledTo.getTime());
        if (segment.grain === 'day') expect(segment.from.getTime() % 86_400_000).toBe(0);
        if (segment.grain === 'hour') expect(segment.from.getTime() % 3_600_000).toBe(0);
      }
    }
  });
});

describe('planSegments with five-minute rollups', () => {
  it('reads the whole five-minute buckets at both edges from them, and only the minutes around them raw', () => {
    const window = { label: 'w', from: at('2026-11-01T10:32:10Z'), to: at('2026-11-03T09:47:30Z') };
    const edges = { rolledTo: at('2026-11-03T09:00:00Z'), fineRolledTo: at('2026-11-03T09:40:00Z') };
    const segments = planSegments([window], edges);
    expect(describeSegments(segments)).toEqual([
      'raw 11-01T10:32..11-01T10:35',
      '5min 11-01T10:35..11-01T11:00',
      'hour 11-01T11:00..11-02T00:00',
      'day 11-02T00:00..11-03T00:00',
      'hour 11-03T00:00..11-03T09:00',
      '5min 11-03T09:00..11-03T09:40',
      'raw 11-03T09:40..11-03T09:47',
    ]);
    expect(tiles(segments, window.from, window.to)).toBe(true);
  });

  it('reads a window within one hour from five-minute buckets, and reads raw what is past them', () => {
    const edges = { rolledTo: at('2026-11-02T00:00:00Z'), fineRolledTo: at('2026-11-02T00:05:00Z') };
    expect(
      describeSegments(
        planSegments([{ label: 'w', from: at('2026-11-01T10:12:00Z'), to: at('2026-11-01T10:50:00Z') }], edges),
      ),
    ).toEqual(['raw 11-01T10:12..11-01T10:15', '5min 11-01T10:15..11-01T10:50']);
    expect(
      describeSegments(
        planSegments([{ label: 'w', from: at('2026-11-02T00:01:00Z'), to: at('2026-11-02T00:30:00Z') }], edges),
      ),
    ).toEqual(['raw 11-02T00:01..11-02T00:30']);
  });

  it('tiles random windows exactly, with no raw minutes but short edges before the five-minute edge', () => {
    const base = at('2026-11-01T00:00:00Z').getTime();
    let seed = 11;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 500; trial += 1) {
      const from = new Date(base + Math.floor(random() * 10 * 86_400_000));
      const to = new Date(from.getTime() + Math.floor(random() * 3 * 86_400_000) + 1);
      const rolledTo = new Date(base + Math.floor(random() * 24 * 12) * 3_600_000);
      const fineRolledTo = new Date(rolledTo.getTime() + Math.floor(random() * 12) * FIVE_MINUTES);
      const segments = planSegments([{ label: 'w', from, to }], { rolledTo, fineRolledTo });
      expect(tiles(segments, from, to)).toBe(true);
      for (const segment of segments) {
        const length = segment.to.getTime() - segment.from.getTime();
        if (segment.grain === '5min') {
          expect(segment.from.getTime() % FIVE_MINUTES).toBe(0);
          expect(segment.to.getTime() % FIVE_MINUTES).toBe(0);
          expect(segment.to.getTime()).toBeLessThanOrEqual(fineRolledTo.getTime());
        }
        if (segment.grain === 'raw' && segment.to <= fineRolledTo) expect(length).toBeLessThan(FIVE_MINUTES);
      }
    }
  });
});

describe('substituteStoredSpans', () => {
  const edge = at('2026-11-05T08:00:00Z');

  it("reads a named window's rolled hours from the span the pass stores for them, keeping the edges", () => {
    const now = at('2026-11-05T08:41:00Z');
    for (const name of ['24h', '7d', '30d'] as const) {
      const window = { label: name, ...resolveTimeWindow(name, now) };
      const segments = substituteStoredSpans(planSegments([window], hoursTo(edge)), spansFor(edge));
      expect(segments.map((segment) => segment.grain)).toEqual(['raw', 'span', 'raw']);
      expect(tiles(segments, window.from, window.to)).toBe(true);
    }
  });

  it('leaves a window alone when no stored span covers exactly its rolled hours', () => {
    const window = { label: 'w', from: at('2026-11-03T10:30:00Z'), to: at('2026-11-05T08:41:00Z') };
    const planned = planSegments([window], hoursTo(edge));
    expect(substituteStoredSpans(planned, spansFor(edge))).toEqual(planned);
    // An hour later, before the next pass stores its spans: the edge has not moved, the window has.
    const later = { label: '24h', ...resolveTimeWindow('24h', at('2026-11-05T09:10:00Z')) };
    expect(
      substituteStoredSpans(planSegments([later], hoursTo(edge)), spansFor(edge)).map((segment) => segment.grain),
    ).not.toContain('span');
  });
});
