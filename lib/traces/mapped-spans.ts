import type { SpanAttempt } from './span-to-attempt';
import type { SpanTry } from './span-to-try';

/** A batch's spans as what will be written: the model and tool calls, the HTTP tries kept, and the spans refused. */
export interface MappedSpans {
  calls: SpanAttempt[];
  tries: SpanTry[];
  /** The tries whose parent is not in this batch: it may be a stored model call. */
  triesOfEarlierParents: SpanTry[];
  rejected: { spanId: string; reason: string }[];
}
