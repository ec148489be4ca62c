import { describe, expect, it } from 'vitest';
import type { CoreContext } from '../../../packages/engine/src/core/kernel/context';
import { priceCall } from '../../../packages/engine/src/core/pricing/price-call';
import { mapSpans } from '../../../packages/engine/src/traces/ingest-spans';
import { DEFAULT_SPAN_MAPPING_RULES } from '../../../packages/engine/src/traces/mapping-rules';
import { recordedScenario } from '../../support/recorded-spans';

/**
 * Spans real instrumentations emitted (tests/fixtures/otel-emitters), mapped as a batch is, in each emitter's
 * convention: OpenTelemetry GenAI, OpenInference's `llm.*`, the AI SDK 6's `ai.*`. Mapping needs no database; the
 * clock is the recording's, so the spans are within the kept days whenever this runs.
 */
async function mapped(emitter: string, scenario: string) {
  const { spans } = recordedScenario(emitter, scenario);
  const recordedAt = new Date(Number(spans[0]!.endNanos / 1_000_000n) + 60_000);
  const ctx = { db: undefined, clock: () => recordedAt } as unknown as CoreContext;
  const result = await mapSpans(ctx, spans, DEFAULT_SPAN_MAPPING_RULES);
  return {
    calls: result.calls.map((call) => ({ step: call.step, costMicros: call.costMicros, modelCall: call.modelCall })),
    rejected: result.rejected,
  };
}

/** What the provider billed for the fake's cached answer: 10,000 input tokens (4,000 of them read from cache), 2,000 out. */
const cachedCallCost = (model: string) =>
  priceCall({
    usage: { inputTokens: 10_000, outputTokens: 2_000, cacheReadInputTokens: 4_000 },
    model,
    provider: 'openai',
    at: new Date('2026-12-06T23:00:00Z'),
  }).costMicros;

describe('calls in each emitter’s convention are counted and priced alike', () => {
  it('the official instrumentation (GenAI) records no cached tokens: the call is priced as all uncached', async () => {
    const [call] = (await mapped('otel-instrumentation-openai', 'c-cached')).calls;
    expect(call).toMatchObject({ step: 'chat_gpt-4o-mini', modelCall: true });
    expect(call!.costMicros).toBeGreaterThan(cachedCallCost('gpt-4o-mini-2024-07-18'));
  });

  it('OpenInference: an LLM span is a model call, its cached tokens priced at the cache price', async () => {
    expect(await mapped('openinference-instrumentation-openai', 'c-cached')).toEqual({
      calls: [
        { step: 'OpenAI_Chat_Completions', costMicros: cachedCallCost('gpt-4o-mini-2024-07-18'), modelCall: true },
      ],
      rejected: [],
    });
  });

  it('the AI SDK 6: each doGenerate is a model call, priced with its cached tokens; its run is not a call', async () => {
    expect(await mapped('ai-sdk-6', 'c-cached')).toEqual({
      calls: [
        { step: 'ai.generateText.doGenerate', costMicros: cachedCallCost('gpt-4o-mini-2024-07-18'), modelCall: true },
      ],
      rejected: [],
    });
  });

  it('the AI SDK 6: a tool call is a step named after its tool, beside the two model calls', async () => {
    const { calls } = await mapped('ai-sdk-6', 'f-tool-call');
    expect(calls.map((call) => [call.step, call.modelCall])).toEqual([
      ['ai.generateText.doGenerate', true],
      ['get_weather', false],
      ['ai.generateText.doGenerate', true],
    ]);
  });
});
