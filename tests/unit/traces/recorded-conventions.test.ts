import { describe, expect, it } from 'vitest';
import type { CoreContext } from '../../../lib/core/kernel/context';
import { mapSpans } from '../../../lib/traces/ingest-spans';
import { DEFAULT_SPAN_MAPPING_RULES } from '../../../lib/traces/mapping-rules';
import { recordedScenario } from '../../support/recorded-spans';

/**
 * Spans real instrumentations emitted (tests/fixtures/otel-emitters), mapped as a batch is: what is counted, and
 * what is rejected and said (partial_success), so that no call is dropped in silence. Mapping needs no database;
 * the clock is the recording's, so the spans are within the kept days whenever this runs.
 */
function mapped(emitter: string, scenario: string) {
  const { spans } = recordedScenario(emitter, scenario);
  const recordedAt = new Date(Number(spans[0]!.endNanos / 1_000_000n) + 60_000);
  const ctx = { db: undefined, clock: () => recordedAt } as unknown as CoreContext;
  return mapSpans(ctx, spans, DEFAULT_SPAN_MAPPING_RULES).then((result) => ({
    counted: result.calls.map((call) => call.step),
    rejected: result.rejected.map(
      (rejection) =>
        `${spans.find((span) => span.spanId === rejection.spanId)!.name}: ${rejection.reason.split(':')[0]}`,
    ),
  }));
}

describe('calls under conventions Holdfast does not count yet are said, not dropped', () => {
  it('OpenInference: each LLM span is rejected and named, the agent run passes unsaid', async () => {
    expect(await mapped('openinference-instrumentation-openai', 'e-two-distinct-calls-one-parent')).toEqual({
      counted: [],
      rejected: [
        'OpenAI Chat Completions: an OpenInference LLM span',
        'OpenAI Chat Completions: an OpenInference LLM span',
      ],
    });
  });

  it('the AI SDK 6: each doGenerate try and tool call is rejected and named, the generateText run passes unsaid', async () => {
    expect(await mapped('ai-sdk-6', 'f-tool-call')).toEqual({
      counted: [],
      rejected: [
        'ai.generateText.doGenerate: an AI SDK ai.generateText.doGenerate span without gen_ai.operation.name (AI SDK 5 and 6)',
        'ai.toolCall: an AI SDK ai.toolCall span without gen_ai.operation.name (AI SDK 5 and 6)',
        'ai.generateText.doGenerate: an AI SDK ai.generateText.doGenerate span without gen_ai.operation.name (AI SDK 5 and 6)',
      ],
    });
  });

  it('the official OpenAI instrumentation and OpenLLMetry write gen_ai.*: their calls are counted, nothing rejected', async () => {
    expect(await mapped('otel-instrumentation-openai', 'c-cached')).toEqual({
      counted: ['chat_gpt-4o-mini'],
      rejected: [],
    });
    expect(await mapped('traceloop-instrumentation-openai', 'c-cached')).toMatchObject({ rejected: [] });
  });
});
