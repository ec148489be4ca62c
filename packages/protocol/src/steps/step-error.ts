import type { ErrorClass } from '../enums';

/**
 * What a step throws to say how it failed. Anything else a step throws is
 * classified `unknown`, and unknown errors are not retried.
 */
export class StepError extends Error {
  constructor(
    readonly errorClass: ErrorClass,
    message: string,
    readonly options: { retryAfterMs?: number; costMicros?: number } = {},
  ) {
    super(message);
    this.name = 'StepError';
  }
}

export interface ClassifiedFailure {
  errorClass: ErrorClass;
  errorText: string;
  retryAfterMs?: number;
  costMicros: number;
}

export function classifyFailure(error: unknown): ClassifiedFailure {
  if (error instanceof StepError) {
    return {
      errorClass: error.errorClass,
      errorText: error.message.trim() || `${error.errorClass} error with no message`,
      retryAfterMs: error.options.retryAfterMs,
      // A nonsense cost on a failure is dropped rather than failing the failure report.
      costMicros:
        Number.isSafeInteger(error.options.costMicros) && (error.options.costMicros ?? 0) >= 0
          ? (error.options.costMicros ?? 0)
          : 0,
    };
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { errorClass: 'unknown', errorText: text.trim() || 'an error with no message', costMicros: 0 };
}
