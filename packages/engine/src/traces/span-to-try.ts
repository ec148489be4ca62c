import type { ErrorClass } from '@holdfast/protocol/enums';
import { type CostSource, priceCall } from '../core/pricing/price-call';
import { unstorableTextProblem } from '@holdfast/protocol/well-formed-text';
import { numberAttribute, textAttribute } from './attribute-values';
import { classifyError } from './error-class-rules';
import type { SpanMappingRules } from './mapping-rules';
import type { ExportedSpan } from './otlp-request';

/**
 * One HTTP try of a model call: an HTTP client span (kind CLIENT, with `http.request.method`) whose
 * parent may be a counted model call. When it is, each try is an attempt of the call's step
 * (ingest-spans.ts numbers them): by `http.request.resend_count` (absent on the first send), then by
 * start. A try's outcome and error class come from its own status; its cost is 0 here, by the
 * failed-call rule when the provider refused it (source `rule`) or for want of tokens of its own
 * (`none`): the call's tokens, and so its cost, go to its last try.
 *
 * The attributes' older names (before the HTTP conventions became stable) are read too:
 * `http.method`, `http.status_code`, `http.resend_count`.
 */
export interface SpanTry {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** Epoch milliseconds. */
  startedAtMs: number;
  finishedAtMs: number;
  outcome: 'succeeded' | 'failed';
  errorClass: ErrorClass | null;
  errorText: string | null;
  httpStatus: number | null;
  resendCount: number | null;
  costMicros: number;
  costSource: CostSource;
}

const SPAN_KIND_CLIENT = 3;
const NANOS_PER_MS = 1_000_000n;

/** The try this span is, if it is an HTTP client span under some parent; undefined otherwise. */
export function spanToHttpTry(span: ExportedSpan, rules: SpanMappingRules): SpanTry | undefined {
  if (span.kind !== SPAN_KIND_CLIENT || !span.parentSpanId) return undefined;
  const method = textAttribute(span.attributes, 'http.request.method') ?? textAttribute(span.attributes, 'http.method');
  if (!method || span.endNanos < span.startNanos) return undefined;

  const errorType = textAttribute(span.attributes, 'error.type') ?? '';
  const httpStatus = statusOf(
    numberAttribute(span.attributes, 'http.response.status_code') ??
      numberAttribute(span.attributes, 'http.status_code') ??
      (/^\d{3}$/.test(errorType) ? Number(errorType) : undefined),
  );
  const resend =
    numberAttribute(span.attributes, 'http.request.resend_count') ??
    numberAttribute(span.attributes, 'http.resend_count');
  // An HTTP client span fails on a 4xx or 5xx answer even where its instrumentation leaves the status unset.
  const failed = span.statusCode === 2 || (httpStatus !== undefined && httpStatus >= 400);
  const errorClass = failed ? classifyError({ status: httpStatus, type: errorType }, rules.errorClassRules) : null;
  const startedAtMs = Number(span.startNanos / NANOS_PER_MS);
  // A try of a model call priced as one with no tokens of its own: 0, by the rule if it was refused.
  const cost = priceCall(
    { model: '', failure: errorClass ? { errorClass, httpStatus } : undefined, at: new Date(startedAtMs) },
    rules.pricing,
  );
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    startedAtMs,
    finishedAtMs: Number(span.endNanos / NANOS_PER_MS),
    outcome: failed ? 'failed' : 'succeeded',
    errorClass,
    errorText: failed ? errorTextOf(span, errorType, httpStatus) : null,
    httpStatus: httpStatus ?? null,
    resendCount: resend !== undefined && Number.isInteger(resend) && resend >= 0 && resend <= 10_000 ? resend : null,
    costMicros: cost.costMicros,
    costSource: cost.source,
  };
}

function statusOf(value: number | undefined): number | undefined {
  return value !== undefined && Number.isInteger(value) && value >= 100 && value <= 599 ? value : undefined;
}

/** The status message, the first exception's message, `error.type`, else the status: never blank, always storable. */
function errorTextOf(span: ExportedSpan, errorType: string, httpStatus: number | undefined): string {
  const fallback = httpStatus !== undefined ? `HTTP ${httpStatus}` : 'the HTTP request failed';
  const text = (
    span.statusMessage.trim() ||
    span.exceptionMessages.find((message) => message.trim() !== '') ||
    errorType ||
    fallback
  ).slice(0, 10_000);
  // A try is no attempt of its own until its call comes: an unstorable text is replaced rather than refused.
  return unstorableTextProblem(text) ? fallback : text;
}
