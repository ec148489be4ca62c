import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { metricCatalog, type MetricName } from '../../../packages/engine/src/metrics/catalog';
import { resetMetricsProcessState, scrapeMetrics } from '../../../packages/engine/src/metrics/scrape';
import { useApi } from '../../support/api-harness';

const api = useApi();

/** Every series line of a scrape: its metric, labels and value. */
function parseSeries(text: string) {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a series line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [name!, value!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

async function scrape(maxStepsPerAgent?: number) {
  resetMetricsProcessState();
  return parseSeries(await scrapeMetrics(api.database.db, { maxAgeMs: 0, maxStepsPerAgent }));
}

const perStep = (Object.keys(metricCatalog) as MetricName[]).filter((name) =>
  (metricCatalog[name].labels as readonly string[]).includes('step'),
);

/** A batch of attempts, one per step name given, every tenth failed (so failures have series too). */
async function reportBatch(agent: string, steps: string[]) {
  const startedAt = new Date(Date.now() - 10 * 60_000);
  const attempts = steps.map((step, index) => ({
    taskId: `cap-${randomUUID()}`,
    agent,
    step,
    attemptNumber: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date(startedAt.getTime() + 1_000).toISOString(),
    costMicros: 7,
    ...(index % 10 === 0 ? { outcome: 'failed', errorClass: 'transient', errorText: '503' } : { outcome: 'succeeded' }),
  }));
  const answer = await api.request('/api/v1/attempts/batch', { body: { attempts } });
  expect(answer).toMatchObject({ status: 200, body: { recorded: steps.length } });
}

const stepNames = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix}-${String(index).padStart(4, '0')}`);

describe('the series of one agent are bounded', () => {
  it('1,000 attempts with 1,000 distinct steps keep 100 steps (the busiest, ties by name) and one `other` per metric, with exact totals', async () => {
    await reportBatch('steady', ['fetch', 'parse']);
    const before = await scrape();

    const runaway = stepNames(1_000, 'r');
    await reportBatch('runaway', runaway);
    const after = await scrape();

    for (const name of perStep) {
      const steps = new Set(
        after.filter((s) => s.name === name && s.labels.agent === 'runaway').map((s) => s.labels.step),
      );
      expect(steps.size, name).toBeLessThanOrEqual(101);
    }
    const attempts = after.filter((s) => s.name === 'holdfast_attempts_total' && s.labels.agent === 'runaway');
    expect(attempts).toHaveLength(101);
    // Every step has one attempt: the first 100 by name keep their series, the other 900 are `other`.
    expect(
      attempts
        .filter((s) => s.labels.step !== 'other')
        .map((s) => s.labels.step)
        .sort(),
    ).toEqual(runaway.slice(0, 100));
    expect(attempts.find((s) => s.labels.step === 'other')?.value).toBe(900);
    expect(attempts.reduce((sum, s) => sum + s.value, 0)).toBe(1_000);
    const spend = after.filter((s) => s.name === 'holdfast_spend_microdollars_total' && s.labels.agent === 'runaway');
    expect(spend.reduce((sum, s) => sum + s.value, 0)).toBe(7_000);
    const failures = after.filter((s) => s.name === 'holdfast_attempt_failures_total' && s.labels.agent === 'runaway');
    // Failed: every tenth step, so 10 among the first 100 names and 90 in `other`.
    expect(failures).toHaveLength(11);
    expect(failures.find((s) => s.labels.step === 'other')).toMatchObject({
      labels: { error_class: 'transient' },
      value: 90,
    });

    expect(after.filter((s) => s.name === 'holdfast_metric_steps_folded')).toEqual([
      { name: 'holdfast_metric_steps_folded', labels: { agent: 'runaway' }, value: 900 },
    ]);
    // Four per-step counters of 101 series, 11 failure series and the folded gauge: not ~5,000.
    expect(after.length - before.length).toBe(4 * 101 + 11 + 1);
    // An agent under the cap is untouched.
    expect(
      after
        .filter((s) => s.name === 'holdfast_attempts_total' && s.labels.agent === 'steady')
        .map((s) => s.labels.step),
    ).toEqual(expect.arrayContaining(['fetch', 'parse']));

    // The busiest steps keep their own series: three more attempts of the last name, and it is kept.
    await reportBatch('runaway', ['r-0999', 'r-0999', 'r-0999']);
    const busier = (await scrape()).filter((s) => s.name === 'holdfast_attempts_total' && s.labels.agent === 'runaway');
    expect(busier.find((s) => s.labels.step === 'r-0999')?.value).toBe(4);
    expect(busier.find((s) => s.labels.step === 'r-0099')).toBeUndefined();
    expect(busier.find((s) => s.labels.step === 'other')?.value).toBe(900);

    // The cap is configurable (HOLDFAST_METRICS_MAX_STEPS_PER_AGENT).
    const small = await scrape(10);
    expect(small.filter((s) => s.name === 'holdfast_attempts_total' && s.labels.agent === 'runaway')).toHaveLength(11);
    expect(small.find((s) => s.name === 'holdfast_metric_steps_folded' && s.labels.agent === 'runaway')?.value).toBe(
      990,
    );
  });
});
