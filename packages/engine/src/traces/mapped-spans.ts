import type { IngestTally } from './ingest-tally';
import type { AgentRun } from './span-runs';
import type { AgentRelease } from './store-releases';
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

/** A whole batch: its spans to write (stored in pieces where it is large: batch-pieces.ts), and the rest of it. */
export interface MappedBatch extends MappedSpans {
  /** Agents' runs: kept apart from the attempts (span-runs.ts). */
  runs: AgentRun[];
  /** The versions and owners the accepted spans' resources name, per agent (store-releases.ts). */
  releases: AgentRelease[];
  /** What became of every span, per service (ingest-tally.ts); the calls' services, for a refusal when stored. */
  tally: IngestTally;
  serviceOfCall: Map<string, string>;
}
