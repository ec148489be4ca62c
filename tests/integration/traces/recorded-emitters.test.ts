import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useApi } from '../../support/api-harness';
import { exportOfRecording } from '../../support/recorded-spans';

/**
 * Spans real instrumentations emitted against a fake provider that logged every request
 * (tests/fixtures/otel-emitters), exported to the receiver as their exporter would: Holdfast's attempts
 * against what the provider received. A retry is a re-send of the same call, never a second call under the
 * same parent; where an emitter's spans carry no sign of the client's retries, that gap is asserted as such.
 */
const api = useApi();

async function attemptsOf(emitter: string, scenario: string) {
  const agent = `rec-${randomUUID().slice(0, 8)}`;
  const answer = await api.request('/v1/traces', { body: exportOfRecording(emitter, scenario, agent) });
  expect(answer).toMatchObject({ status: 200, body: {} });
  const rows = await api.database.sql<
    { iteration: number; attempt_number: number; outcome: string; error_class: string | null }[]
  >`select iteration, attempt_number, outcome, error_class from attempts where agent = ${agent}
    order by started_at, attempt_number`;
  return rows.map((row) => [row.iteration, row.attempt_number, row.outcome, row.error_class]);
}

describe('attempts from recorded spans equal the provider’s requests', () => {
  it('the official OpenAI instrumentation with undici: 429, 500, 200 are three attempts of one call', async () => {
    expect(await attemptsOf('otel-instrumentation-openai+undici', 'a-retry-429-500-200')).toEqual([
      [0, 1, 'failed', 'rate_limited'],
      [0, 2, 'failed', 'transient'],
      [0, 3, 'succeeded', null],
    ]);
  });

  it('with undici, a retried call and then another call under one parent: four requests, one retry chain, two calls', async () => {
    expect(await attemptsOf('otel-instrumentation-openai+undici', 'e3-retry-then-distinct-one-parent')).toEqual([
      [0, 1, 'failed', 'rate_limited'],
      [0, 2, 'failed', 'transient'],
      [0, 3, 'succeeded', null],
      [1, 1, 'succeeded', null],
    ]);
  });

  it('with undici, a call failing for good: its three requests, each a failed attempt', async () => {
    expect(await attemptsOf('otel-instrumentation-openai+undici', 'b-fail-500-always')).toEqual([
      [0, 1, 'failed', 'transient'],
      [0, 2, 'failed', 'transient'],
      [0, 3, 'failed', 'transient'],
    ]);
  });

  it('two different calls under one parent are two first attempts, not a retry (official, OpenLLMetry)', async () => {
    for (const emitter of ['otel-instrumentation-openai', 'traceloop-instrumentation-openai']) {
      expect(await attemptsOf(emitter, 'e-two-distinct-calls-one-parent'), emitter).toEqual([
        [0, 1, 'succeeded', null],
        [1, 1, 'succeeded', null],
      ]);
    }
  });

  it('without an HTTP instrumentation the client’s retries are not in the spans: one attempt (the documented gap)', async () => {
    expect(await attemptsOf('otel-instrumentation-openai', 'a-retry-429-500-200')).toEqual([[0, 1, 'succeeded', null]]);
    // A call that failed for good says only the SDK's class name: transient by its rule.
    expect(await attemptsOf('otel-instrumentation-openai', 'b-fail-500-always')).toEqual([
      [0, 1, 'failed', 'transient'],
    ]);
  });

  it('the AI SDK 6 emits a span per try: 429, 500, 200 are three attempts of one call (its tries name no status)', async () => {
    expect(await attemptsOf('ai-sdk-6', 'a-retry-429-500-200')).toEqual([
      [0, 1, 'failed', 'unknown'],
      [0, 2, 'failed', 'unknown'],
      [0, 3, 'succeeded', null],
    ]);
  });

  it('OpenInference: two different calls under one parent are two first attempts; a call failing for good sends no span', async () => {
    expect(await attemptsOf('openinference-instrumentation-openai', 'e-two-distinct-calls-one-parent')).toEqual([
      [0, 1, 'succeeded', null],
      [1, 1, 'succeeded', null],
    ]);
    // The provider answered 500 three times; the instrumentation ends no span for a call that throws.
    expect(await attemptsOf('openinference-instrumentation-openai', 'b-fail-500-always')).toEqual([]);
  });
});
