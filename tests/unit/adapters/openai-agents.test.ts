import { ModelTimeoutError, type ModelRequest } from '@openai/agents-core';
import { APIConnectionError, APIConnectionTimeoutError, APIError, RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import { iterationOfHash } from '../../../packages/client/src/adapters/content-key';
import { stepErrorOfModelFailure } from '../../../packages/client/src/adapters/openai-agents/model-failure';
import { requestHashOf } from '../../../packages/client/src/adapters/openai-agents/model-request-key';

/**
 * The OpenAI Agents SDK adapter's two readings: how a failed model call is classed for Holdfast (which
 * decides the retry from the class), and what names a model call in its key.
 */
describe('a failed model call, classed', () => {
  const classOf = (error: unknown, signal?: AbortSignal) => {
    const stepError = stepErrorOfModelFailure(error, signal);
    return [stepError.errorClass, stepError.options.retryAfterMs];
  };

  it("reads the OpenAI client's errors by status, with its Retry-After", () => {
    expect(classOf(new RateLimitError(429, {}, 'slow down', new Headers({ 'retry-after': '2' })))).toEqual([
      'rate_limited',
      2_000,
    ]);
    expect(classOf(new RateLimitError(429, {}, 'slow down', new Headers({ 'retry-after-ms': '750' })))).toEqual([
      'rate_limited',
      750,
    ]);
    expect(classOf(new APIError(503, {}, 'overloaded', new Headers()))).toEqual(['transient', undefined]);
    expect(classOf(new APIError(400, {}, 'bad request', new Headers()))).toEqual(['permanent', undefined]);
    // OpenAI's 409 is a lock that timed out, and its x-should-retry header is the server's own word.
    expect(classOf(new APIError(409, {}, 'lock timeout', new Headers()))).toEqual(['transient', undefined]);
    expect(classOf(new APIError(500, {}, 'no', new Headers({ 'x-should-retry': 'false' })))).toEqual([
      'permanent',
      undefined,
    ]);
  });

  it('reads a call that got no answer, a timeout and an abort', () => {
    expect(classOf(new APIConnectionError({ message: 'socket hang up' }))).toEqual(['transient', undefined]);
    expect(classOf(new APIConnectionTimeoutError())).toEqual(['timeout', undefined]);
    expect(classOf(new ModelTimeoutError({ timeoutMs: 1_000 }))).toEqual(['timeout', undefined]);
    const controller = new AbortController();
    controller.abort(new Error('the run was cancelled'));
    expect(classOf(new Error('aborted'), controller.signal)).toEqual(['transient', undefined]);
  });

  it('leaves anything else unknown, which Holdfast never retries', () => {
    expect(classOf(new TypeError('undefined is not a function'))).toEqual(['unknown', undefined]);
    expect(stepErrorOfModelFailure('a string').message).toBe('a string');
  });
});

describe("a model call's key", () => {
  const request = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
    systemInstructions: 'Send invoices.',
    input: [{ role: 'user', content: 'Send INV-7.' }],
    modelSettings: {},
    tools: [],
    outputType: 'text',
    handoffs: [],
    tracing: false,
    ...overrides,
  });

  it('is the same for the same request however this process asks it', async () => {
    const first = await requestHashOf(request(), 'gpt-4o-mini');
    const again = await requestHashOf(
      request({
        tracing: true,
        signal: new AbortController().signal,
        modelSettings: { retry: { maxRetries: 3, policy: () => true } },
      }),
      'gpt-4o-mini',
    );
    expect(again).toBe(first);
  });

  it('differs for another conversation, other instructions or another model', async () => {
    const first = await requestHashOf(request(), 'gpt-4o-mini');
    const hashes = [
      await requestHashOf(request({ input: [{ role: 'user', content: 'Send INV-8.' }] }), 'gpt-4o-mini'),
      await requestHashOf(request({ systemInstructions: 'Refund invoices.' }), 'gpt-4o-mini'),
      await requestHashOf(request(), 'gpt-4o'),
    ];
    expect(new Set([first, ...hashes]).size).toBe(4);
  });

  it('names an iteration begin accepts: 0 to 2^31 - 1', () => {
    expect(iterationOfHash('ffffffff00')).toBe(0x7fffffff);
    expect(iterationOfHash('00000000ff')).toBe(0);
    expect(iterationOfHash('80000001')).toBe(1);
  });
});
