import { describe, expect, it } from 'vitest';
import { planSegments, type Segment, substituteStoredSpans } from '../../lib/rollups/segments';
import { spansFor } from '../../lib/rollups/spans';
import { resolveTimeWindow } from '../../lib/time-window';

const at = (iso: string) => new Date(iso);
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
    expect(describeSegments(planSegments([window], null))).toEqual(['raw 11-01T10:30..11-03T10:30']);
  });

  it('splits a window into a raw head, hours, whole days, hours and a raw tail', () => {
    const window = { label: 'w', from: at('2026-11-01T10:30:00Z'), to: at('2026-11-05T09:15:00Z') };
    const segments = planSegments([window], at('2026-11-05T08:00:00Z'));
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
    expect(describeSegments(planSegments([window], at('2026-11-10T00:00:00Z'), 'hour'))).toEqual([
      'hour 11-01T00:00..11-04T00:00',
    ]);
  });

  it('stays raw for a window inside one hour or past the rollups', () => {
    expect(
      planSegments(
        [{ label: 'w', from: at('2026-11-01T10:10:00Z'), to: at('2026-11-01T10:50:00Z') }],
        at('2026-11-02T00:00:00Z'),
      ),
    ).toMatchObject([{ grain: 'raw' }]);
    expect(
      planSegments(
        [{ label: 'w', from: at('2026-11-03T00:00:00Z'), to: at('2026-11-04T00:00:00Z') }],
        at('2026-11-02T00:00:00Z'),
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
      const segments = planSegments([{ label: `t${trial}`, from, to }], rolledTo);
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

describe('substituteStoredSpans', () => {
  const edge = at('2026-11-05T08:00:00Z');

  it("reads a named window's rolled hours from the span the pass stores for them, keeping the raw edges", () => {
    const now = at('2026-11-05T08:41:00Z');
    for (const name of ['24h', '7d', '30d'] as const) {
      const window = { label: name, ...resolveTimeWindow(name, now) };
      const segments = substituteStoredSpans(planSegments([window], edge), spansFor(edge));
      expect(segments.map((segment) => segment.grain)).toEqual(['raw', 'span', 'raw']);
      expect(tiles(segments, window.from, window.to)).toBe(true);
    }
  });

  it('leaves a window alone when no stored span covers exactly its rolled hours', () => {
    const window = { label: 'w', from: at('2026-11-03T10:30:00Z'), to: at('2026-11-05T08:41:00Z') };
    const planned = planSegments([window], edge);
    expect(substituteStoredSpans(planned, spansFor(edge))).toEqual(planned);
    // An hour later, before the next pass stores its spans: the edge has not moved, the window has.
    const later = { label: '24h', ...resolveTimeWindow('24h', at('2026-11-05T09:10:00Z')) };
    expect(
      substituteStoredSpans(planSegments([later], edge), spansFor(edge)).map((segment) => segment.grain),
    ).not.toContain('span');
  });
});
