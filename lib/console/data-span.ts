import type { TimeRange } from '@holdfast/protocol/time-window';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** "15 days", "20 hours", "40 minutes": a span in the largest unit that reads naturally. */
function spanText(ms: number): string {
  if (ms >= 2 * DAY_MS) return `${Math.round(ms / DAY_MS)} days`;
  if (ms >= 2 * HOUR_MS) return `${Math.round(ms / HOUR_MS)} hours`;
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/**
 * What a window really holds when the history is younger than the window: "Data begins 2026-11-18 06:00 UTC:
 * this window holds 15 days of its 30." Null when the window is covered from its start (or nothing is known),
 * so pages say nothing then.
 */
export function dataSpanNotice(range: TimeRange, dataBegins: Date | null): string | null {
  if (dataBegins === null || dataBegins <= range.from || dataBegins >= range.to) return null;
  const held = spanText(range.to.getTime() - dataBegins.getTime());
  const whole = spanText(range.to.getTime() - range.from.getTime());
  const begins = dataBegins.toISOString().slice(0, 16).replace('T', ' ');
  return `Data begins ${begins} UTC: this window holds ${held} of its ${whole}.`;
}
