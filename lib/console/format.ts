/**
 * Number formatting for the dashboard. The locale is fixed so that the server
 * render and the browser render produce the same text.
 */
const LOCALE = 'en-US';

const countFormat = new Intl.NumberFormat(LOCALE);
const percentFormat = new Intl.NumberFormat(LOCALE, {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

export function formatCount(value: number): string {
  return countFormat.format(value);
}

/** A share in [0, 1] as a percentage with one decimal: 0.25 -> "25.0%". */
export function formatPercent(share: number): string {
  return percentFormat.format(share);
}

const MICROS_PER_DOLLAR = 1_000_000;

/**
 * Micro-dollars as US dollars. Model calls cost fractions of a cent, so
 * amounts under a dollar keep four decimals; larger ones keep cents.
 */
export function formatMicros(micros: number): string {
  const dollars = micros / MICROS_PER_DOLLAR;
  const digits = micros !== 0 && Math.abs(dollars) < 1 ? 4 : 2;
  return new Intl.NumberFormat(LOCALE, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(dollars);
}

/** A moment in UTC, as the console writes times: "2026-11-30 08:05 UTC" (with seconds on request); "—" for none. */
export function formatUtc(moment: Date | null, precision: 'minute' | 'second' = 'minute'): string {
  if (!moment) return '—';
  return `${moment
    .toISOString()
    .slice(0, precision === 'minute' ? 16 : 19)
    .replace('T', ' ')} UTC`;
}

/** How long something has waited: "12 min", "5 h", "3 d". */
export function formatAge(since: Date, now: Date): string {
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}
