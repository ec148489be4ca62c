import type { ErrorClass } from '../db/schema/enums';
import { numberAttribute, textAttribute } from './attribute-values';
import type { ExportedSpan } from './otlp-request';

/**
 * A failed span's error class, by the first rule that matches, in this order.
 * The HTTP status comes from `http.response.status_code`, else from an
 * `error.type` that is a status number (as the GenAI conventions allow).
 * Only retryable classes are retried (DOMAIN.md, invariant 8), so a rule that
 * cannot tell says `unknown`, which is not.
 */
export const ERROR_CLASS_RULES: readonly {
  when: string;
  errorClass: ErrorClass;
  matches: (error: SpanError) => boolean;
}[] = [
  { when: 'HTTP 429', errorClass: 'rate_limited', matches: (error) => error.status === 429 },
  {
    when: 'error.type names a rate limit',
    errorClass: 'rate_limited',
    matches: (error) => /rate.?limit/i.test(error.type),
  },
  {
    when: 'HTTP 408 or 5xx',
    errorClass: 'transient',
    matches: (error) =>
      error.status === 408 || (error.status !== undefined && error.status >= 500 && error.status <= 599),
  },
  {
    when: 'error.type names a timeout, a reset or refused connection, or an overloaded server',
    errorClass: 'transient',
    matches: (error) => /time.?out|timedout|ECONNRESET|ECONNREFUSED|EPIPE|overloaded|unavailable/i.test(error.type),
  },
  {
    when: 'other HTTP 4xx',
    errorClass: 'permanent',
    matches: (error) => error.status !== undefined && error.status >= 400 && error.status <= 499,
  },
];

export interface SpanError {
  status: number | undefined;
  /** `error.type`, or '' when the span has none. */
  type: string;
}

export function classifySpanError(span: ExportedSpan): ErrorClass {
  const error: SpanError = { status: httpStatusOf(span), type: textAttribute(span.attributes, 'error.type') ?? '' };
  return ERROR_CLASS_RULES.find((rule) => rule.matches(error))?.errorClass ?? 'unknown';
}

/** `http.response.status_code`, else an `error.type` that is a status number. */
export function httpStatusOf(span: ExportedSpan): number | undefined {
  const type = textAttribute(span.attributes, 'error.type') ?? '';
  return (
    numberAttribute(span.attributes, 'http.response.status_code') ?? (/^\d{3}$/.test(type) ? Number(type) : undefined)
  );
}
