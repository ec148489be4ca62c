import { describe, expect, it } from 'vitest';
import type { StepStats } from '../../../lib/queries/step-stats';
import { applyStepsView } from '../../../lib/queries/steps-page';
import { parseStepsView } from '../../../lib/filters/steps';
import { stepsViewHref } from '../../../lib/console/filter-forms/steps';

const now = new Date('2026-11-30T12:00:00Z');
const row = (agent: string, step: string, retryRate: number, latencyP95Ms: number | null): StepStats => ({
  agent,
  step,
  attempts: 10,
  retries: 1,
  retryRate,
  failures: 0,
  totalSpendMicros: 0,
  retrySpendMicros: 0,
  retryShareOfSpend: 0,
  firstTrySuccess: 1,
  latencyP50Ms: latencyP95Ms,
  latencyP95Ms,
  failuresByClass: {},
});

describe('the Steps view in the URL', () => {
  it('defaults to 24 hours, most retry spend first', () => {
    expect(parseStepsView({}, now)).toMatchObject({
      window: '24h',
      sort: 'retrySpendMicros',
      dir: 'desc',
      notices: [],
    });
  });

  it('reads a custom window, and refuses a backwards one with a notice', () => {
    const custom = parseStepsView({ window: 'custom', from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' }, now);
    expect(custom.range).toEqual({ from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-02T00:00:00Z') });
    const backwards = parseStepsView(
      { window: 'custom', from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' },
      now,
    );
    expect(backwards.window).toBe('24h');
    expect(backwards.notices).toHaveLength(1);
  });

  it("reads the form's zone-less From and To as UTC, whatever the server's own zone", () => {
    const typed = parseStepsView({ window: 'custom', from: '2026-11-01T09:05', to: '2026-11-01T10:35' }, now);
    expect(typed.range).toEqual({ from: new Date('2026-11-01T09:05:00Z'), to: new Date('2026-11-01T10:35:00Z') });
    // As the fields show it: a space between the date and the time.
    const spaced = parseStepsView({ window: 'custom', from: '2026-11-01 09:05', to: ' 2026-11-01 10:35 ' }, now);
    expect(spaced.range).toEqual(typed.range);
    const zoned = parseStepsView({ window: 'custom', from: '2026-11-01T09:05:00+02:00', to: '2026-11-01T10:00Z' }, now);
    expect(zoned.range.from).toEqual(new Date('2026-11-01T07:05:00Z'));
  });

  it('ignores an unknown sort column with a notice rather than failing', () => {
    expect(parseStepsView({ sort: 'password', dir: 'sideways' }, now)).toMatchObject({
      sort: 'retrySpendMicros',
      dir: 'desc',
      notices: ['Ignored sort=“password”', 'Ignored dir=“sideways”'],
    });
  });

  it('searches agent and step names and sorts with empty figures last', () => {
    const rows = [
      row('outreach', 'draft_email', 0.1, 900),
      row('payments', 'charge_card', 0.3, null),
      row('research', 'call_model', 0.2, 4_000),
    ];
    expect(applyStepsView(rows, { search: 'CARD', sort: 'retryRate', dir: 'desc' }).map((r) => r.step)).toEqual([
      'charge_card',
    ]);
    expect(applyStepsView(rows, { sort: 'latencyP95Ms', dir: 'asc' }).map((r) => r.step)).toEqual([
      'draft_email',
      'call_model',
      'charge_card',
    ]);
    expect(applyStepsView(rows, { sort: 'latencyP95Ms', dir: 'desc' }).map((r) => r.step)).toEqual([
      'call_model',
      'draft_email',
      'charge_card',
    ]);
  });

  it('keeps every other parameter when one changes', () => {
    const view = parseStepsView({ window: '7d', agent: 'payments', q: 'card' }, now);
    expect(stepsViewHref(view, { sort: 'retryRate', dir: 'asc' })).toBe(
      '/steps?window=7d&agent=payments&q=card&sort=retryRate&dir=asc',
    );
  });
});
