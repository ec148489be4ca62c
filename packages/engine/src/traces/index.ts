/** The OTLP receiver's face: reading a request, mapping and storing its spans, and the span error class rules the settings edit. */
export { DEFAULT_ERROR_CLASS_RULES, readErrorClassRules } from './error-class-rules';
export type { ErrorClassRule } from './error-class-rules';
export { rulesFingerprint, saveErrorClassRules } from './manage-error-class-rules';
export type { ErrorClassRuleInput } from './manage-error-class-rules-input';
export { RequestPastLimitsError, UnreadableRequestError, encodeResponse, readTracesRequest } from './otlp-request';
export type { ExportedSpan, ReadingNotes } from './otlp-request';
export { OTLP_LIMITS } from './otlp-limits';
export { mapSpans, storeMappedSpans } from './ingest-spans';
export type { MappedBatch } from './ingest-spans';
export { spanMappingRules } from './mapping-rules';
