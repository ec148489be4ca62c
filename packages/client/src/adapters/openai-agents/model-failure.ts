import { ModelTimeoutError } from '@openai/agents-core';
import { errorClassOfStatus, retryAfterMsOf, StepError } from '../step-loop';

/**
 * How a failed model call is reported to Holdfast. The class decides whether Holdfast grants a retry:
 * the provider's HTTP status as Holdfast's own rules read it (429 rate limited, 408 and 5xx transient,
 * other 4xx permanent), a timeout as a timeout, a dropped connection as transient; anything else is
 * `unknown`, which Holdfast never retries.
 */
export function stepErrorOfModelFailure(error: unknown, signal?: AbortSignal): StepError {
  if (error instanceof StepError) return error;
  const text = textOf(error);
  if (error instanceof ModelTimeoutError || signal?.reason instanceof ModelTimeoutError) {
    return new StepError('timeout', `the model call timed out: ${text}`);
  }
  // The caller (the runner, a person) gave up on the call: nothing says the model was at fault, and a
  // later run may try again, so it is transient; the in-process wait for that retry ends with the signal.
  if (signal?.aborted) return new StepError('transient', `the model call was aborted: ${text}`);
  const status = statusOf(error);
  if (status !== undefined) {
    return new StepError(
      classOfAnswer(status, headerOf(error, 'x-should-retry')),
      `the model answered ${status}: ${text}`,
      {
        retryAfterMs: retryAfterOf(error),
      },
    );
  }
  // The OpenAI client's classes for a request that got no answer at all (their `name` is plain "Error",
  // and `instanceof` would miss a second copy of the package, so the class is read by its name).
  const classes = classNamesOf(error);
  if (classes.includes('APIConnectionTimeoutError')) return new StepError('timeout', text);
  if (classes.includes('APIConnectionError')) return new StepError('transient', text);
  return new StepError('unknown', text);
}

/**
 * Holdfast's reading of a status, with what the OpenAI API adds to it: an `x-should-retry` header is the
 * server's own word, and its 409 is a lock that timed out (transient), not a conflict in the request.
 */
function classOfAnswer(status: number, shouldRetry: string | undefined) {
  if (shouldRetry === 'false') return 'permanent';
  if (shouldRetry === 'true' && status !== 429) return 'transient';
  if (status === 409) return 'transient';
  return errorClassOfStatus(status);
}

function classNamesOf(error: unknown): string[] {
  const names: string[] = [];
  for (let prototype = Object.getPrototypeOf(error ?? {}); prototype; prototype = Object.getPrototypeOf(prototype)) {
    const name = (prototype as { constructor?: { name?: string } }).constructor?.name;
    if (name) names.push(name);
  }
  return names;
}

function textOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.trim() || 'a model call failed with no message';
}

/** The HTTP status an error carries: `status` on the OpenAI client's errors, `statusCode` on others'. */
function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && value >= 100 && value <= 599 ? value : undefined;
}

/** A response header the error carries (the OpenAI client's a Headers object, others' a plain record). */
function headerOf(error: unknown, name: string): string | undefined {
  const headers = (error as { headers?: unknown }).headers;
  if (typeof headers !== 'object' || headers === null) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** The server's Retry-After: OpenAI's `retry-after-ms` first, then the standard header. */
function retryAfterOf(error: unknown): number | undefined {
  const milliseconds = headerOf(error, 'retry-after-ms');
  const value = Number(milliseconds);
  if (milliseconds !== undefined && Number.isFinite(value) && value >= 0) return Math.round(value);
  return retryAfterMsOf(headerOf(error, 'retry-after'));
}
