import { hashContent } from '@holdfast/protocol/keys/derive-key';

/** A rate: at most `calls` in each `periodMs` (fixed windows from the Unix epoch). */
export interface Rate {
  calls: number;
  periodMs: number;
}

/** A spend rate: at most `micros` of calls' cost in each `periodMs` (fixed windows from the Unix epoch). */
export interface SpendRate {
  micros: number;
  periodMs: number;
}

/** A price per unit a tool's result counts: `micros` each, the count at `field` of its structured result. */
export interface UnitPrice {
  micros: number;
  field: string;
}

/** The most counters kept; past it, windows that have ended are dropped first. */
const MAX_COUNTERS = 10_000;

/**
 * Counts calls per key in fixed windows and refuses past a rate. In this gateway's memory: each gateway process
 * counts its own calls (a limit for N gateways in front of one server is N times the rate).
 */
export class RateCounter {
  private readonly windows = new Map<string, { start: number; calls: number }>();

  constructor(private readonly now: () => number) {}

  /** Takes one call for `key` under `rate`; undefined when allowed, else how long until the window turns. */
  take(key: string, rate: Rate): number | undefined {
    const now = this.now();
    const start = Math.floor(now / rate.periodMs) * rate.periodMs;
    const window = this.windows.get(key);
    const current = window && window.start === start ? window : { start, calls: 0 };
    if (current.calls >= rate.calls) return start + rate.periodMs - now;
    current.calls += 1;
    this.windows.set(key, current);
    if (this.windows.size > MAX_COUNTERS) this.forgetEnded(now, rate.periodMs);
    return undefined;
  }

  private forgetEnded(now: number, periodMs: number): void {
    for (const [key, window] of this.windows) if (window.start + periodMs <= now) this.windows.delete(key);
  }
}

/**
 * Sums what calls cost per key in fixed windows, and refuses a call once its window's spend has reached the limit.
 * A call's cost is known only when it is answered: calls already in flight when the limit is reached still count,
 * so a window may pass its limit by what those calls cost. In this gateway's memory, like RateCounter.
 */
export class SpendCounter {
  private readonly windows = new Map<string, { start: number; micros: number }>();

  constructor(private readonly now: () => number) {}

  /** Undefined when `key` may spend more under `limit` now, else how long until the window turns. */
  check(key: string, limit: SpendRate): number | undefined {
    const now = this.now();
    const window = this.windows.get(key);
    const start = Math.floor(now / limit.periodMs) * limit.periodMs;
    if (!window || window.start !== start || window.micros < limit.micros) return undefined;
    return start + limit.periodMs - now;
  }

  /** Adds a call's cost to `key`'s window now. */
  add(key: string, limit: SpendRate, micros: number): void {
    const now = this.now();
    const start = Math.floor(now / limit.periodMs) * limit.periodMs;
    const window = this.windows.get(key);
    const current = window && window.start === start ? window : { start, micros: 0 };
    current.micros += micros;
    this.windows.set(key, current);
    if (this.windows.size > MAX_COUNTERS) {
      for (const [key, ended] of this.windows) if (ended.start + limit.periodMs <= now) this.windows.delete(key);
    }
  }
}

/** A spend rate in words: "$0.50 an hour". */
export function spendText(limit: SpendRate): string {
  // Six decimals, less the trailing zeros past the cents: $0.50, $0.0125, $2.00.
  const dollars = (limit.micros / 1_000_000).toFixed(6).replace(/0{1,4}$/, '');
  return `$${dollars} ${limit.periodMs === 60_000 ? 'a minute' : 'an hour'}`;
}

/**
 * How many units a tool's answer counts for its unit price: the number at `field` of its structured result, a whole
 * or fractional count from 0 to a billion; undefined when the result states none.
 */
export function unitsOf(result: { structuredContent?: Record<string, unknown> }, field: string): number | undefined {
  const value = result.structuredContent?.[field];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1_000_000_000
    ? value
    : undefined;
}

/** One session's counts of identical calls (the same tool with the same arguments): a model in a loop. */
export class IdenticalCalls {
  private readonly seen = new Map<string, number>();

  /** Counts this call; answers how many times the session has now made it. */
  count(tool: string, args: Record<string, unknown> | undefined): number {
    const key = hashContent({ tool, arguments: args ?? {} });
    const calls = (this.seen.get(key) ?? 0) + 1;
    // Bounded like the rate counters: a session making ten thousand different calls forgets the oldest.
    if (!this.seen.has(key) && this.seen.size >= MAX_COUNTERS) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, calls);
    return calls;
  }
}

/** `30/m`, `5/s`, `1000/h` as a rate. */
export function parseRate(text: string): Rate | undefined {
  const match = /^(\d{1,9})\/(s|m|h)$/.exec(text.trim());
  if (!match) return undefined;
  const periodMs = { s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
  const calls = Number(match[1]);
  return calls > 0 ? { calls, periodMs } : undefined;
}

/** A rate in words: "30 calls a minute", "5 calls an hour". */
export function rateText(rate: Rate): string {
  const period = rate.periodMs === 1_000 ? 'a second' : rate.periodMs === 60_000 ? 'a minute' : 'an hour';
  return `${rate.calls} call${rate.calls === 1 ? '' : 's'} ${period}`;
}
