import type { TimeRange } from '@holdfast/protocol/time-window';
import { FINE_BUCKET_MS } from './bucket-sums';

/**
 * Where each part of a window's figures is read from. Whole hours that the
 * rollup sweep has closed come from hourly rollups, whole UTC days of those
 * from daily rollups, and the rest (a partial first hour, and everything from
 * the hourly rollups' edge to the window's end, including the open hour) from
 * five-minute rollups where whole rolled buckets fit, and from the raw
 * attempt log for the minutes left over. Every moment of the window is
 * covered by exactly one segment, so summing the segments gives exact figures. A window's hourly
 * and daily segments together may be read instead from a stored span of the
 * same hours ('span', see substituteStoredSpans).
 */
export type Grain = 'raw' | '5min' | 'hour' | 'day' | 'span';

export interface Segment {
  /** Which window of the query the segment belongs to (queries may ask for several). */
  label: string;
  grain: Grain;
  from: Date;
  to: Date;
}

/** A stored span's hours, and whether its latency histograms are stored too (rollup_spans.latency). */
export interface StoredSpan extends TimeRange {
  latency: boolean;
}

export interface LabelledWindow extends TimeRange {
  label: string;
}

/** Where the rollups end: closed hours before `rolledTo`, five-minute buckets before `fineRolledTo`. */
export interface RollupEdges {
  rolledTo: Date | null;
  fineRolledTo: Date | null;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const floorTo = (moment: number, unit: number) => Math.floor(moment / unit) * unit;
const ceilTo = (moment: number, unit: number) => Math.ceil(moment / unit) * unit;

/**
 * Splits each window into segments. `edges` are where the rollups end (null:
 * nothing rolled up, or read everything raw). `finestBucket: 'hour'` keeps
 * daily rollups out, for callers that group by hour; '5min' keeps hourly ones
 * out too, for callers that group by minutes; '1min' reads the raw log alone.
 */
export function planSegments(
  windows: LabelledWindow[],
  edges: RollupEdges,
  finestBucket: '1min' | '5min' | 'hour' | 'day' = 'day',
): Segment[] {
  return windows.flatMap((window) => planWindow(window, edges, finestBucket));
}

function planWindow(
  { label, from, to }: LabelledWindow,
  { rolledTo, fineRolledTo }: RollupEdges,
  finestBucket: '1min' | '5min' | 'hour' | 'day',
): Segment[] {
  if (from >= to) return [];
  // Single minutes: no rollup is that fine; the raw log alone (kept for the raw retention, read by its index).
  if (finestBucket === '1min') return [{ label, grain: 'raw', from, to }];
  const segment = (grain: Grain, start: number, end: number): Segment[] =>
    start < end ? [{ label, grain, from: new Date(start), to: new Date(end) }] : [];
  // A stretch outside the whole rolled hours: its rolled five-minute buckets, and the minutes around them raw.
  const edge = (start: number, end: number): Segment[] => {
    const fineFrom = ceilTo(start, FINE_BUCKET_MS);
    const fineTo = fineRolledTo === null ? -Infinity : Math.min(floorTo(end, FINE_BUCKET_MS), fineRolledTo.getTime());
    if (fineFrom >= fineTo) return segment('raw', start, end);
    return [...segment('raw', start, fineFrom), ...segment('5min', fineFrom, fineTo), ...segment('raw', fineTo, end)];
  };

  // Minute buckets: the five-minute rollups (kept for rolled hours too, as long as the raw log) and raw minutes.
  if (finestBucket === '5min') return edge(from.getTime(), to.getTime());

  const hoursFrom = ceilTo(from.getTime(), HOUR_MS);
  const hoursTo =
    rolledTo === null ? -Infinity : Math.min(floorTo(to.getTime(), HOUR_MS), floorTo(rolledTo.getTime(), HOUR_MS));
  if (hoursFrom >= hoursTo) return edge(from.getTime(), to.getTime());

  const daysFrom = ceilTo(hoursFrom, DAY_MS);
  const daysTo = floorTo(hoursTo, DAY_MS);
  const rolledUp =
    finestBucket === 'day' && daysFrom < daysTo
      ? [
          ...segment('hour', hoursFrom, daysFrom),
          ...segment('day', daysFrom, daysTo),
          ...segment('hour', daysTo, hoursTo),
        ]
      : segment('hour', hoursFrom, hoursTo);

  return [...edge(from.getTime(), hoursFrom), ...rolledUp, ...edge(hoursTo, to.getTime())];
}

/** The hours a window's segments take from the rollups (hourly and daily, contiguous), or null if none. */
export function rolledBounds(segments: Segment[]): TimeRange | null {
  const rolled = segments.filter((segment) => segment.grain === 'hour' || segment.grain === 'day');
  if (rolled.length === 0) return null;
  return {
    from: new Date(Math.min(...rolled.map((segment) => segment.from.getTime()))),
    to: new Date(Math.max(...rolled.map((segment) => segment.to.getTime()))),
  };
}

/**
 * Replaces each window's hourly and daily segments with one 'span' segment
 * when a stored span covers exactly those hours (packages/engine/src/rollups/spans.ts). The
 * segments at the window's edges stay as they are.
 */
export function substituteStoredSpans(segments: Segment[], spans: TimeRange[]): Segment[] {
  const labels = [...new Set(segments.map((segment) => segment.label))];
  return labels.flatMap((label) => {
    const own = segments.filter((segment) => segment.label === label);
    const bounds = rolledBounds(own);
    const held =
      bounds &&
      spans.some((span) => span.from.getTime() === bounds.from.getTime() && span.to.getTime() === bounds.to.getTime());
    if (!held) return own;
    return [
      ...own.filter((segment) => segment.to <= bounds.from),
      { label, grain: 'span' as const, from: bounds.from, to: bounds.to },
      ...own.filter((segment) => segment.from >= bounds.to),
    ];
  });
}
