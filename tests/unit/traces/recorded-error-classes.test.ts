import { describe, expect, it } from 'vitest';
import { classifySpanError, DEFAULT_ERROR_CLASS_RULES } from '../../../packages/engine/src/traces/error-class-rules';
import { recordedScenario } from '../../support/recorded-spans';

/**
 * Failed spans as real instrumentations emit them (tests/fixtures/otel-emitters), classed by the default rules:
 * what each emitter's spans let Holdfast tell, and what they do not (asserted as such, so a change shows).
 */
const failed = (emitter: string, scenario: string) =>
  recordedScenario(emitter, scenario).spans.filter((span) => span.statusCode === 2);
const classes = (emitter: string, scenario: string, name: (spanName: string) => boolean = () => true) =>
  failed(emitter, scenario)
    .filter((span) => name(span.name))
    .map((span) => classifySpanError(span, DEFAULT_ERROR_CLASS_RULES));

describe('error classes of recorded spans', () => {
  it('the official OpenAI instrumentation: a call failed with 500 has only the SDK class name, InternalServerError', () => {
    const [call] = failed('otel-instrumentation-openai', 'b-fail-500-always');
    expect(call!.attributes.get('error.type')).toBe('InternalServerError');
    expect(call!.attributes.get('http.response.status_code')).toBeUndefined();
    expect(classifySpanError(call!, DEFAULT_ERROR_CLASS_RULES)).toBe('transient');
  });

  it("with undici, each try's HTTP span carries its status: 429 rate limited, 500 transient", () => {
    expect(classes('otel-instrumentation-openai+undici', 'a-retry-429-500-200', (name) => name === 'POST')).toEqual([
      'rate_limited',
      'transient',
    ]);
  });

  it('the AI SDK 7: a call failed for good carries the last try’s status (500, or the overloaded 529)', () => {
    expect(classes('ai-sdk-7-otel', 'b-fail-500-always', (name) => name.startsWith('chat'))).toEqual(['transient']);
    expect(classes('ai-sdk-7-otel', 'anthropic-b-overloaded-529-always', (name) => name.startsWith('chat'))).toEqual([
      'transient',
    ]);
  });

  it('the AI SDK 6: a failed try says AI_APICallError and the provider’s message, no status: unknown (a documented gap)', () => {
    const tries = failed('ai-sdk-6', 'a-retry-429-500-200').filter(
      (span) => span.name === 'ai.generateText.doGenerate',
    );
    expect(tries.map((span) => span.exceptionTypes)).toEqual([['AI_APICallError'], ['AI_APICallError']]);
    expect(tries.map((span) => classifySpanError(span, DEFAULT_ERROR_CLASS_RULES))).toEqual(['unknown', 'unknown']);
    // The run that gave up names the SDK's own wrapper, AI_RetryError, which says nothing of the cause either.
    const [run] = failed('ai-sdk-6', 'b-fail-500-always').filter((span) => span.name === 'ai.generateText');
    expect(run!.exceptionTypes).toEqual(['AI_RetryError']);
  });
});
