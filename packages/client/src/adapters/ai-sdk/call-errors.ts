import { StepError, errorClassOfStatus, retryAfterMsOf } from '../step-loop';

/**
 * How a failed model call is told to Holdfast. The AI SDK's providers throw an
 * APICallError carrying the HTTP status and headers: its class comes from the
 * status (429 rate limited, 408 and 5xx transient, other 4xx permanent) and a
 * Retry-After is kept so the retry waits at least that long. A timeout is a
 * timeout. Anything else is `unknown`, which Holdfast does not retry: an error
 * nobody has classified might be the agent's own bug, and repeating it only spends.
 */
export function stepErrorOfModelCall(error: unknown): StepError {
  if (error instanceof StepError) return error;
  const call = error as { name?: string; message?: string; statusCode?: unknown; responseHeaders?: unknown };
  const message = `${call.name ?? 'Error'}: ${call.message ?? String(error)}`;
  if (typeof call.statusCode === 'number') {
    const headers = (call.responseHeaders ?? {}) as Record<string, string | undefined>;
    return new StepError(errorClassOfStatus(call.statusCode), message, {
      retryAfterMs: retryAfterMsOf(headers['retry-after']),
    });
  }
  if (call.name === 'TimeoutError') return new StepError('timeout', message);
  return new StepError('unknown', message);
}
