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
