import { formatMicros } from '@/lib/console/format';
import type { McpToolControl } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import { RATE_PERIODS } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import type { ToolControlFormValues } from './actions';

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

/** A stored control as the form shows it for a change: numbers as typed, blanks for what is the gateway's own. */
export function formValuesOf(control: McpToolControl & { server: string }): ToolControlFormValues {
  const text = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));
  const periodMs = control.rateLimit?.periodMs;
  return {
    server: control.server,
    tool: control.tool,
    priceUsd: control.priceMicros === null ? '' : String(control.priceMicros / 1_000_000),
    rateCalls: text(control.rateLimit?.calls),
    ratePer: periodMs === RATE_PERIODS.s ? 's' : periodMs === RATE_PERIODS.h ? 'h' : 'm',
    maxIdenticalCalls: text(control.maxIdenticalCalls),
    reason: '',
  };
}
