import { z } from 'zod';

/**
 * The zone the console writes times in: UTC (the default, what logs and other
 * tools say) or the viewer's own. Kept in a cookie for a year, like the theme.
 */
export const TIME_ZONE_COOKIE = 'holdfast-time-zone';
export const timeZonePreference = z.enum(['utc', 'local']);
export type TimeZonePreference = z.infer<typeof timeZonePreference>;

export function parseTimeZonePreference(value: string | undefined): TimeZonePreference {
  const parsed = timeZonePreference.safeParse(value);
  return parsed.success ? parsed.data : 'utc';
}

/** "2026-11-30 09:05 (UTC+1)": a moment in this browser's zone, with the zone named. */
export function formatLocal(moment: Date, precision: 'minute' | 'second' = 'minute'): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const date = `${moment.getFullYear()}-${pad(moment.getMonth() + 1)}-${pad(moment.getDate())}`;
  const time = `${pad(moment.getHours())}:${pad(moment.getMinutes())}${precision === 'second' ? `:${pad(moment.getSeconds())}` : ''}`;
  return `${date} ${time} ${localZoneName(moment)}`;
}

/** This browser's offset from UTC at that moment, as "UTC+1", "UTC-4:30" or "UTC". */
export function localZoneName(moment: Date = new Date()): string {
  const offset = -moment.getTimezoneOffset();
  if (offset === 0) return 'UTC';
  const hours = Math.floor(Math.abs(offset) / 60);
  const minutes = Math.abs(offset) % 60;
  return `UTC${offset > 0 ? '+' : '-'}${hours}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}`;
}
