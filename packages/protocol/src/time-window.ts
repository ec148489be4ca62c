import { z } from 'zod';

/** The windows the dashboard offers; shared by pages, route handlers and the browser. */
export const timeWindowName = z.enum(['1h', '24h', '7d', '30d']);
export type TimeWindowName = z.infer<typeof timeWindowName>;

export const DEFAULT_TIME_WINDOW: TimeWindowName = '24h';

const HOUR_MS = 60 * 60 * 1000;
const windowLengthMs: Record<TimeWindowName, number> = {
  '1h': HOUR_MS,
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
  '30d': 30 * 24 * HOUR_MS,
};

export const timeWindowLabel: Record<TimeWindowName, string> = {
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
};

export interface TimeRange {
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}

/** Thirty days: the length a monthly projection is stated for. */
const MONTH_MS = 30 * 24 * HOUR_MS;

/**
 * A figure summed over a window, projected over 30 days at the window's rate: a projection, not a forecast (the
 * window's own pattern, repeated). The 30-day window is its own projection.
 */
export function monthlyProjection(sum: number, window: TimeWindowName): number {
  return sum * (MONTH_MS / windowLengthMs[window]);
}

/** The range of the same length that ends where the given one starts: what a window is compared with. */
export function previousRangeOf(range: TimeRange): TimeRange {
  const length = range.to.getTime() - range.from.getTime();
  return { from: new Date(range.from.getTime() - length), to: range.from };
}

/** A range's length in words: "24 hours", "7 days", "90 minutes" (days only from 3 days, as people say them). */
export function rangeLength(range: TimeRange): string {
  const minutes = Math.round((range.to.getTime() - range.from.getTime()) / 60_000);
  const [count, unit] =
    minutes % 1440 === 0 && minutes >= 3 * 1440
      ? [minutes / 1440, 'day']
      : minutes % 60 === 0
        ? [minutes / 60, 'hour']
        : [minutes, 'minute'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** The window ending now: [now - length, now). */
export function resolveTimeWindow(name: TimeWindowName, now: Date): TimeRange {
  return { from: new Date(now.getTime() - windowLengthMs[name]), to: now };
}

/**
 * The width of a chart's buckets. Short windows are drawn in minutes so a rise shows when it began: an hour in
 * twelve five-minute buckets, a day in quarter hours; longer windows in hours or UTC days.
 */
export type BucketUnit = '1min' | '5min' | '15min' | 'hour' | 'day';

export const bucketLengthMs: Record<BucketUnit, number> = {
  '1min': 60_000,
  '5min': 5 * 60_000,
  '15min': 15 * 60_000,
  hour: HOUR_MS,
  day: 24 * HOUR_MS,
};

/** Words for a chart title: "Attempts per 5 minutes". */
export const bucketUnitLabel: Record<BucketUnit, string> = {
  '1min': 'per minute',
  '5min': 'per 5 minutes',
  '15min': 'per 15 minutes',
  hour: 'per hour',
  day: 'per day',
};

/**
 * The buckets a range is drawn in: five minutes up to two hours (single minutes up to an hour for a caller that
 * reads one step's raw log: `minutes`), quarter hours up to two days, UTC days beyond.
 * Minute buckets are read from the five-minute rollups, which are kept only as long as the raw log: a range
 * starting before `minuteFloor` (where the raw log begins) is drawn in hours instead.
 */
export function bucketFor(range: TimeRange, minuteFloor?: Date, options: { minutes?: boolean } = {}): BucketUnit {
  const length = range.to.getTime() - range.from.getTime();
  const minutesKept = minuteFloor === undefined || range.from >= minuteFloor;
  // One step's page reads its raw minutes by its index: up to an hour, a rise shows the minute it began.
  if (options.minutes && length <= HOUR_MS && minutesKept) return '1min';
  if (length <= 2 * HOUR_MS && minutesKept) return '5min';
  if (length <= 2 * 24 * HOUR_MS) return minutesKept ? '15min' : 'hour';
  return 'day';
}

/**
 * Every bucket start of a range, in order, as ISO strings: charts draw a quiet bucket as a zero rather than
 * joining its neighbours across it. Buckets are aligned to the Unix epoch, as PostgreSQL's date_bin and
 * date_trunc in UTC align them.
 */
export function bucketStarts(range: TimeRange, unit: BucketUnit): string[] {
  const length = bucketLengthMs[unit];
  const starts: string[] = [];
  for (let start = Math.floor(range.from.getTime() / length) * length; start < range.to.getTime(); start += length)
    starts.push(new Date(start).toISOString().replace('.000Z', 'Z'));
  return starts;
}

/**
 * A series with a point for every bucket of the range: a bucket the read left out (no attempts) gets
 * `empty(bucket)`. Points outside the range's buckets are kept, in order, so nothing read is dropped.
 */
export function withEveryBucket<Point extends { bucket: string }>(
  points: Point[],
  range: TimeRange,
  unit: BucketUnit,
  empty: (bucket: string) => Point,
): Point[] {
  const byBucket = new Map(points.map((point) => [point.bucket, point]));
  const filled = bucketStarts(range, unit).map((bucket) => byBucket.get(bucket) ?? empty(bucket));
  const drawn = new Set(filled.map((point) => point.bucket));
  const strays = points.filter((point) => !drawn.has(point.bucket));
  return strays.length === 0 ? filled : [...filled, ...strays].sort((a, b) => (a.bucket < b.bucket ? -1 : 1));
}

/** The bucket a moment falls in, keyed as bucketStarts keys it (UTC, without milliseconds). */
export function bucketOf(moment: Date, unit: BucketUnit): string {
  const length = bucketLengthMs[unit];
  return new Date(Math.floor(moment.getTime() / length) * length).toISOString().replace('.000Z', 'Z');
}
