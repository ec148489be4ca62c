import { formatMicros } from '@/lib/console/format';
import type { McpToolControl } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import { RATE_PERIODS } from '@holdfast/protocol/inputs/mcp-tool-control-input';

const PERIOD_WORDS: Record<number, string> = {
  [RATE_PERIODS.s]: 'second',
  [RATE_PERIODS.m]: 'minute',
  [RATE_PERIODS.h]: 'hour',
};

/** "10 a minute"; a rate left to the gateway is said so. */
export function rateWords(rate: McpToolControl['rateLimit']): string | undefined {
  return rate
    ? `${rate.calls.toLocaleString('en-US')} a ${PERIOD_WORDS[rate.periodMs] ?? `${rate.periodMs} ms`}`
    : undefined;
}

export function priceWords(priceMicros: number | null): string | undefined {
  return priceMicros === null ? undefined : `${formatMicros(priceMicros)} a call`;
}

export function capWords(cap: number | null): string | undefined {
  if (cap === null) return undefined;
  return cap === 0 ? 'no cap' : `${cap.toLocaleString('en-US')} in a session`;
}

/** A control's tool as people read it: `*` is every tool of the server without a control of its own. */
export const controlName = (server: string, tool: string) =>
  tool === '*' ? `every other tool of ${server}` : `${server}:${tool}`;

/** The rate's unit as the form's select names it. */
export function ratePerOf(rate: McpToolControl['rateLimit']): 's' | 'm' | 'h' {
  if (rate?.periodMs === RATE_PERIODS.s) return 's';
  if (rate?.periodMs === RATE_PERIODS.h) return 'h';
  return 'm';
}
