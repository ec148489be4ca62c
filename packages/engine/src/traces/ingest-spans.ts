import type { MappedBatch, MappedSpans } from './mapped-spans';
import { decide } from '../core/identity/authorization';
import { type CoreContext, DEFAULT_CORE_POLICY, nowOf, policyOf } from '../core/kernel/context';
import type { ExportedSpan } from './otlp-request';
import type { SpanMappingRules } from './mapping-rules';
import { callsInTheirAgentsTasks } from './span-tasks';
import { IngestTally, serviceOf, writeIngestTally } from './ingest-tally';
import { type AgentRun, spanToRun } from './span-runs';
import { storeRuns } from './store-runs';
import { ReleasesSeen, storeReleases } from './store-releases';
import { type SpanAttempt, spanToAttempt } from './span-to-attempt';
import { type SpanTry, spanToHttpTry } from './span-to-try';
import { piecesOf } from './batch-pieces';
import { loopYielder } from './otlp-limits';
import { forgetAttempts, numberAttempts } from './renumber-attempts';
import { lockForSpans, MAX_LOCKS_PER_BATCH, type SenderLimits, storedParents, storeSpans } from './store-spans';

export interface IngestResult {
  /** Spans that are attempts, new or seen before. */
  attempts: number;
  /** Spans refused, each with its reason (the first few are named in the answer). */
  rejected: { spanId: string; reason: string }[];
}

/** A clock a little ahead of ours is a skewed exporter, not an attempt from the future (as recordAttempt). */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** Tries of a batch run again when a model call they belong to was stored by a batch committed meanwhile. */
const MAX_TRANSACTION_TRIES = 3;

class ParentStoredMeanwhile extends Error {}
const UNIQUE_VIOLATION = '23505';

/** The SQLSTATE of a PostgreSQL error, also when drizzle wrapped it (as its `cause`). */
function postgresCodeOf(error: unknown): string {
  for (let current = error, depth = 0; current && depth < 3; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return '';
}

/**
 * Turns an export batch's spans into attempts (span-to-attempt.ts, span-to-try.ts), in one
 * transaction (store-spans.ts): the spans are stored once each (trace_spans' key: a batch sent
 * again adds nothing), then every step execution that gained a span is numbered from all its
 * stored spans, by start time, and its attempts written under that numbering (those it had before
 * are taken out first). So attempt numbers are exact whatever order siblings, and a model call and
 * its HTTP tries, arrive in, and across batches. Tasks (and traces) are locked while numbered, so
 * two batches carrying spans of one execution take turns.
 *
 * A span is refused (and counted in the answer's partial success) when it cannot be an attempt,
 * starts outside the raw retention, or acts for an agent the token may not act for: its limits, or
 * a task stored with another agent. An HTTP client span is never refused: it is a try only if its
 * parent turns out to be a model call.
 */
export async function ingestSpans(
  ctx: CoreContext,
  spans: readonly ExportedSpan[],
  rules: SpanMappingRules,
): Promise<IngestResult> {
  return storeMappedSpans(ctx, await mapSpans(ctx, spans, rules));
}

export type { MappedBatch, MappedSpans };

/**
 * The first half of ingestSpans, with no database (and giving the event loop its turn): which spans are attempts or tries, and which are refused.
 * Its own step so that a caller can let the decoded spans go before the database's wait: a batch's decoded
 * spans are several times the size of what is written, and kept alive across that wait, they were copied by
 * every young-generation collection that met them and then collected again from the old one.
 */
export async function mapSpans(
  ctx: CoreContext,
  spans: readonly ExportedSpan[],
  rules: SpanMappingRules,
): Promise<MappedBatch> {
  const rejected: IngestResult['rejected'] = [];
  const calls: SpanAttempt[] = [];
  const tries: SpanTry[] = [];
  const runs: AgentRun[] = [];
  const tally = new IngestTally();
  const releases = new ReleasesSeen();
  const serviceOfCall = new Map<string, string>();
  const spanOfTry = new Map<SpanTry, ExportedSpan>();
  const now = nowOf(ctx).getTime();
  const retentionMs = policyOf(ctx).attemptRetentionMs ?? DEFAULT_CORE_POLICY.attemptRetentionMs!;
  const inKeptDays = (startedAtMs: number) =>
    startedAtMs >= now - retentionMs && startedAtMs <= now + MAX_CLOCK_SKEW_MS;
  const mayExport = !ctx.actor || decide(ctx.actor, 'traces.write').allowed;
  const refuse = (span: ExportedSpan, reason: string) => {
    rejected.push({ spanId: span.spanId, reason });
    tally.count(span, 'rejected');
  };
  const decisionFor = (agent: string) =>
    ctx.actor ? decide(ctx.actor, 'traces.write', { agent }) : { allowed: true as const };
  // What each span of the batch is, by trace and span id: a try's parent here that is no model call takes no tries.
  const modelCallHere = new Map<string, boolean>();
  // A batch of 1,000 spans takes a while to map (and price): the event loop gets its turn every few ms.
  const yieldToLoop = loopYielder();
  for (const span of spans) {
    await yieldToLoop();
    const asRun = spanToRun(span);
    if (asRun) {
      modelCallHere.set(span.traceId + span.spanId, false);
      if ('refused' in asRun) refuse(span, asRun.refused);
      else if (!inKeptDays(asRun.run.startedAtMs))
        refuse(span, 'starts outside the kept days of attempts (or in the future)');
      else {
        const decision = decisionFor(asRun.run.agent);
        if (!decision.allowed) refuse(span, decision.reason);
        else {
          runs.push(asRun.run);
          releases.add(asRun.run.agent, span);
          tally.count(span, 'run');
        }
      }
      continue;
    }
    const mapped = spanToAttempt(span, rules);
    if (!mapped.counted) {
      modelCallHere.set(span.traceId + span.spanId, false);
      const spanTry = mayExport ? spanToHttpTry(span, rules) : undefined;
      if (spanTry && inKeptDays(spanTry.startedAtMs)) {
        tries.push(spanTry);
        spanOfTry.set(spanTry, span);
      } else tally.countUncounted(span, mapped.operation);
      continue;
    }
    // A call refused here is never stored: its HTTP children cannot become its tries.
    modelCallHere.set(span.traceId + span.spanId, false);
    if ('refused' in mapped) {
      refuse(span, mapped.refused);
      continue;
    }
    const { attempt } = mapped;
    if (!inKeptDays(attempt.startedAtMs)) {
      refuse(span, 'starts outside the kept days of attempts (or in the future)');
      continue;
    }
    const decision = decisionFor(attempt.agent);
    if (!decision.allowed) {
      refuse(span, decision.reason);
      continue;
    }
    calls.push(attempt);
    releases.add(attempt.agent, span);
    tally.count(span, 'call');
    serviceOfCall.set(attempt.spanId, serviceOf(span));
    modelCallHere.set(attempt.traceId + attempt.spanId, attempt.modelCall);
  }
  const keptTries = tries.filter((spanTry) => modelCallHere.get(spanTry.traceId + spanTry.parentSpanId) !== false);
  const triesOfEarlierParents = keptTries.filter(
    (spanTry) => !modelCallHere.has(spanTry.traceId + spanTry.parentSpanId),
  );
  // An HTTP client span under a model call (or whose parent has not arrived) is a try; any other is no call.
  const kept = new Set(keptTries);
  for (const [spanTry, span] of spanOfTry) tally.count(span, kept.has(spanTry) ? 'http_try' : 'other');
  return {
    calls,
    tries: keptTries,
    triesOfEarlierParents,
    rejected,
    runs,
    releases: releases.list(),
    tally,
    serviceOfCall,
  };
}

/**
 * The second half of ingestSpans: the mapped batch written in one transaction (see ingestSpans), or, when it
 * has more traces and tasks than one transaction may lock, in pieces of one transaction each (batch-pieces.ts):
 * one after the other, so a failure leaves the pieces before it stored, and the exporter's retry of the whole
 * batch adds only what they did not store (a stored span is never stored again).
 */
export async function storeMappedSpans(ctx: CoreContext, mapped: MappedBatch): Promise<IngestResult> {
  const placed = await callsInTheirAgentsTasks(ctx.db, mapped.calls);
  const result: IngestResult = { attempts: 0, rejected: placed.rejected };
  const { runs, releases, tally, serviceOfCall, ...spans } = mapped;
  for (const piece of piecesOf({ ...spans, calls: placed.calls }, MAX_LOCKS_PER_BATCH)) {
    const stored = await storeMappedPiece(ctx, piece);
    result.attempts += stored.attempts;
    result.rejected.push(...stored.rejected);
  }
  await storeRuns(ctx.db, runs);
  await storeReleases(ctx.db, releases, nowOf(ctx));
  // The calls refused as they were stored (a task of another agent) are counted as refused, not as calls.
  for (const rejection of result.rejected) {
    const service = serviceOfCall.get(rejection.spanId);
    if (service !== undefined) tally.recount(service, 'call', 'rejected', 1);
  }
  await writeIngestTally(ctx.db, tally, nowOf(ctx));
  return result;
}

async function storeMappedPiece(ctx: CoreContext, mapped: MappedSpans): Promise<IngestResult> {
  const { calls, tries: keptTries, triesOfEarlierParents, rejected } = mapped;
  if (calls.length === 0 && keptTries.length === 0) return { attempts: 0, rejected };
  const sender: SenderLimits =
    ctx.actor?.type === 'agent'
      ? { agents: ctx.actor.allowedAgents ?? null, queues: ctx.actor.allowedQueues ?? null }
      : { agents: null, queues: null };

  // The first try writes the spans not stored yet with plain inserts; a unique violation (a span or an attempt
  // number written meanwhile by a writer that takes none of these locks) sends it again with ON CONFLICT.
  let robust = false;
  for (let transactionTry = 1; ; transactionTry += 1) {
    try {
      const refused = await ctx.db.transaction(async (tx) => {
        // Tries whose parent is not in this batch: a stored model call's task is locked too; a parent that is
        // stored and no model call takes no tries (an HTTP request of a tool, say), so those are left out.
        const parents = new Map(
          (await storedParents(tx, triesOfEarlierParents)).map((parent) => [
            parent.traceId + parent.spanId,
            parent.taskId,
          ]),
        );
        const batchTries = keptTries.filter((spanTry) => parents.get(spanTry.traceId + spanTry.parentSpanId) !== null);
        const tasks = [
          ...calls.map((call) => call.taskId),
          ...[...parents.values()].filter((task): task is string => task !== null),
        ];
        const traces = [
          ...calls.filter((call) => call.modelCall).map((call) => call.traceId),
          ...batchTries.map((spanTry) => spanTry.traceId),
        ];
        // The lock is sent first and the spans right behind it, without waiting for its answer: PostgreSQL runs
        // them in order, and the second statement's snapshot is taken once the locks are held.
        const locking = tx.execute(lockForSpans(traces, tasks)).then(() => undefined);
        const [, stored] = await Promise.all([locking, storeSpans(tx, calls, batchTries, sender, tasks, robust)]);
        if (stored.unlockedTask) throw new ParentStoredMeanwhile();
        // New executions' attempts were written with their spans; those that had attempts are numbered again.
        const again = stored.gaining.filter((execution) => execution.earlier);
        await forgetAttempts(tx, again);
        await numberAttempts(tx, again);
        return stored.rejected;
      });
      return { attempts: calls.length - refused.length, rejected: [...rejected, ...refused] };
    } catch (error) {
      if (transactionTry >= MAX_TRANSACTION_TRIES) throw error;
      // The model call was stored, and its task unlocked, between the read of stored calls and the locks: again, with it.
      if (error instanceof ParentStoredMeanwhile) continue;
      if (!robust && postgresCodeOf(error) === UNIQUE_VIOLATION) {
        robust = true;
        continue;
      }
      throw error;
    }
  }
}
