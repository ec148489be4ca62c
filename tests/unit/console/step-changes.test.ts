import { describe, expect, it } from 'vitest';
import { changeOf, isNewStep } from '../../../lib/console/step-changes';
import type { ComparedStepStats, PreviousWindowFigures } from '../../../lib/queries/step-figures';

const figures = (overrides: Partial<PreviousWindowFigures> = {}): PreviousWindowFigures => ({
  attempts: 100,
  retries: 10,
  retryRate: 0.1,
  failures: 4,
  totalSpendMicros: 1_000_000,
  retrySpendMicros: 250_000,
  retryShareOfSpend: 0.25,
  firstTrySuccess: 0.9,
  failedSpendMicros: 40_000,
  ...overrides,
});

const row = (now: Partial<PreviousWindowFigures>, previous: PreviousWindowFigures | null): ComparedStepStats => ({
  agent: 'a',
  step: 's',
  ...figures(now),
  failedSpendMicros: figures(now).failedSpendMicros,
  failuresByClass: {},
  latencyP50Ms: null,
  latencyP95Ms: null,
  previous,
  retrySpendChangeMicros: null,
});

describe('changeOf', () => {
  it('says counts and spend as a signed share of the previous figure, rates in points, with a verdict in words', () => {
    const compared = row(
      { attempts: 112, retries: 5, retryRate: 0.131, retrySpendMicros: 300_000, firstTrySuccess: 0.85 },
      figures(),
    );
    expect(changeOf('attempts', compared)).toEqual({ text: '+12\u00a0%', verdict: 'neither' });
    expect(changeOf('retries', compared)).toEqual({ text: '\u221250\u00a0%', verdict: 'better' });
    expect(changeOf('retryRate', compared)).toEqual({ text: '+3.1\u00a0pp', verdict: 'worse' });
    expect(changeOf('firstTrySuccess', compared)).toEqual({ text: '\u22125.0\u00a0pp', verdict: 'worse' });
    // Retry spend also in dollars: the page sorts by that.
    expect(changeOf('retrySpendMicros', compared)).toEqual({ text: '+$0.0500 (+20\u00a0%)', verdict: 'worse' });
    expect(changeOf('failures', compared)).toEqual({ text: '±0', verdict: 'neither' });
    // Below ten percent, one decimal.
    expect(changeOf('totalSpendMicros', row({ totalSpendMicros: 1_050_000 }, figures()))?.text).toBe('+5.0\u00a0%');
  });

  it('marks a step without attempts before as new (once, not per figure), and says "new" for a figure that was 0', () => {
    const newStep = row(
      {},
      figures({ attempts: 0, retries: 0, failures: 0, totalSpendMicros: 0, retrySpendMicros: 0 }),
    );
    expect(isNewStep(newStep)).toBe(true);
    expect(isNewStep(row({}, figures()))).toBe(false);
    expect(isNewStep(row({}, null))).toBe(false);
    for (const column of ['attempts', 'retryRate', 'retrySpendMicros', 'failedSpendMicros'] as const)
      expect(changeOf(column, newStep)).toBeNull();
    expect(changeOf('failures', row({}, figures({ failures: 0 })))).toEqual({ text: 'new', verdict: 'worse' });
    // Retry spend keeps its dollars, the figure its sort reads.
    expect(changeOf('retrySpendMicros', row({}, figures({ retrySpendMicros: 0 })))).toEqual({
      text: '+$0.2500 (new)',
      verdict: 'worse',
    });
  });

  it('shows nothing where there is nothing to compare', () => {
    expect(changeOf('retryRate', row({}, null))).toBeNull();
    expect(changeOf('latencyP95Ms', row({}, figures()))).toBeNull();
    expect(changeOf('failedSpendMicros', row({ failedSpendMicros: null }, figures()))).toBeNull();
    expect(changeOf('firstTrySuccess', row({}, figures({ firstTrySuccess: null })))).toBeNull();
    expect(changeOf('retryRate', row({ retryRate: 0.1004 }, figures()))).toEqual({
      text: '±0\u00a0pp',
      verdict: 'neither',
    });
  });
});

describe('rangeLength', () => {
  it('names a window as people do', async () => {
    const { rangeLength } = await import('@holdfast/protocol/time-window');
    const span = (minutes: number) => ({ from: new Date(0), to: new Date(minutes * 60_000) });
    expect(rangeLength(span(24 * 60))).toBe('24 hours');
    expect(rangeLength(span(7 * 24 * 60))).toBe('7 days');
    expect(rangeLength(span(60))).toBe('1 hour');
    expect(rangeLength(span(90))).toBe('90 minutes');
  });
});
