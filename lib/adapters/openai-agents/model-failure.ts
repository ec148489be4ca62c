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
    return new StepError(errorClassOfStatus(status), `the model answered ${status}: ${text}`, {
      retryAfterMs: retryAfterOf(error),
    });
  }
  const name = error instanceof Error ? error.name : '';
  // The OpenAI client's names for a request that got no answer at all.
  if (name === 'APIConnectionTimeoutError') return new StepError('timeout', text);
  if (name === 'APIConnectionError') return new StepError('transient', text);
  return new StepError('unknown', text);
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

/** The server's Retry-After, from the headers the error carries (a Headers object or a plain record). */
function retryAfterOf(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown }).headers;
  if (typeof headers !== 'object' || headers === null) return undefined;
  const read = (name: string): string | undefined => {
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const milliseconds = Number(read('retry-after-ms'));
  if (read('retry-after-ms') !== undefined && Number.isFinite(milliseconds) && milliseconds >= 0) {
    return Math.round(milliseconds);
  }
  return retryAfterMsOf(read('retry-after'));
}
