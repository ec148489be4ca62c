import { formatMicros } from '@/lib/console/format';
import type { McpToolControl } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import { RATE_PERIODS } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import type { ToolControlFormValues } from './actions';

const PERIOD_WORDS: Record<number, string> = {
  [RATE_PERIODS.s]: 'a second',
  [RATE_PERIODS.m]: 'a minute',
  [RATE_PERIODS.h]: 'an hour',
};
const perPeriod = (periodMs: number) => PERIOD_WORDS[periodMs] ?? `per ${periodMs} ms`;

/** "10 a minute"; a rate left to the gateway is said so. */
export function rateWords(rate: McpToolControl['rateLimit']): string | undefined {
  return rate ? `${rate.calls.toLocaleString('en-US')} ${perPeriod(rate.periodMs)}` : undefined;
}

export function priceWords(priceMicros: number | null): string | undefined {
  return priceMicros === null ? undefined : `${formatMicros(priceMicros)} a call`;
}

/** "$0.50 an hour" (per agent). */
export function spendLimitWords(limit: McpToolControl['spendLimit']): string | undefined {
  return limit ? `${formatMicros(limit.micros)} ${perPeriod(limit.periodMs)}` : undefined;
}

/** "$0.0079 per unit (segments)": a price per unit and the result's field counting them. */
export function unitPriceWords(unit: McpToolControl['unitPrice']): string | undefined {
  return unit ? `${formatMicros(unit.micros)} per unit (${unit.field})` : undefined;
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
  const per = (ms: number | undefined, otherwise: 's' | 'm' | 'h') =>
    ms === RATE_PERIODS.s ? 's' : ms === RATE_PERIODS.m ? 'm' : ms === RATE_PERIODS.h ? 'h' : otherwise;
  return {
    server: control.server,
    tool: control.tool,
    priceUsd: control.priceMicros === null ? '' : String(control.priceMicros / 1_000_000),
    rateCalls: text(control.rateLimit?.calls),
    ratePer: periodMs === RATE_PERIODS.s ? 's' : periodMs === RATE_PERIODS.h ? 'h' : 'm',
    maxIdenticalCalls: text(control.maxIdenticalCalls),
    allAgentsRateCalls: text(control.allAgentsRateLimit?.calls),
    allAgentsRatePer: per(control.allAgentsRateLimit?.periodMs, 'm'),
    spendLimitUsd: control.spendLimit ? String(control.spendLimit.micros / 1_000_000) : '',
    spendLimitPer: per(control.spendLimit?.periodMs, 'h'),
    unitPriceUsd: control.unitPrice ? String(control.unitPrice.micros / 1_000_000) : '',
    unitField: control.unitPrice?.field ?? '',
    reason: '',
  };
}
