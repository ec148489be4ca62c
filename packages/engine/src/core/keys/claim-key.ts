import { randomUUID } from 'node:crypto';
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { idempotencyKeys } from '../../db/schema';
import { agentOfTask } from '../identity/agent-targets';
import { resolveTaskForActor } from '../tasks/task-agent';
import { enforceTokenLimits } from '../identity/authorization';
import type { CoreContext } from '../kernel/context';
import { KeyPayloadMismatchError } from '@holdfast/protocol/errors';
import { fixedStatement } from '../kernel/run-statement';
import { parseInput } from '@holdfast/protocol/validation';
import { claimKeyInput, type ClaimKeyInput, type ClaimKeyRequest } from '@holdfast/protocol/inputs/claim-key-input';
import { storedRawKey } from './raw-key-name';

export { claimKeyInput, type ClaimKeyInput } from '@holdfast/protocol/inputs/claim-key-input';

const HOUR_MS = 3_600_000;

/**
 * How long a key is kept after its last change, per scope. It must outlast the
 * longest retry horizon of anything that may redeliver (visibility timeout x
 * attempts can be hours), or a late redelivery would run the work again.
 */
export const keyRetentionMs: Record<string, number> = {
  step: 7 * 24 * HOUR_MS,
  api: 24 * HOUR_MS,
};
export const DEFAULT_RETENTION_MS = 7 * 24 * HOUR_MS;

/**
 * The scope's retention, in SQL, for rows that do not carry their own
 * (`retention_ms` is null on keys claimed before it was stored).
 */
export function scopeRetentionMsSql(scope: AnyColumn): SQL {
  const cases = Object.entries(keyRetentionMs).map(([name, ms]) => {
    if (!/^[a-z_]+$/.test(name) || !Number.isInteger(ms)) throw new Error(`keyRetentionMs: bad entry ${name}`);
    return sql.raw(` when '${name}' then ${ms}`);
  });
  return sql`(case ${scope}${sql.join(cases)} else ${sql.raw(String(DEFAULT_RETENTION_MS))} end)::bigint`;
}

/** When a key settled now expires: its claim's retention (or its scope's) counted from this change. */
export function expiresAfterRetentionSql(): SQL {
  const k = idempotencyKeys;
  return sql`now() + make_interval(secs => coalesce(${k.retentionMs}, ${scopeRetentionMsSql(k.scope)})::double precision / 1000)`;
}

export type ClaimOutcome =
  | { outcome: 'acquired'; key: string; fencingToken: number; attemptNumber: number }
  | { outcome: 'replay'; key: string; result: unknown }
  | { outcome: 'in_progress'; key: string; retryAfterMs: number }
  | { outcome: 'uncertain'; key: string; fencingToken: number; intentAt: Date };

const millisecondsFromNow = (name: string) =>
  sql`now() + make_interval(secs => ${sql.placeholder(name)}::double precision / 1000)`;

/** The claim's returned row, as PostgreSQL names it (fixedStatement). */
interface ClaimRow {
  [column: string]: unknown;
  status: 'in_progress' | 'completed' | 'failed';
  request_hash: string;
  holder_claim: string | null;
  fencing_token: number;
  acquisitions: number;
  downstream_idempotent: boolean;
  result: unknown;
  /** Text: timestamps reach raw statements unparsed (packages/engine/src/db/client.ts). */
  updated_at: string;
  ms_until_unlocked: string | number;
}

const claimStatement = fixedStatement<ClaimRow>((db) => {
  const k = idempotencyKeys;
  // A claim still in progress is never "a new operation", whatever its retention says:
  // a live holder may still be running (a takeover would run the work twice), and an
  // expired holder of a downstream that cannot deduplicate left an uncertain outcome
  // that only a person may settle.
  const stillClaimed = sql`(${k.status} = 'in_progress' and (${k.lockedUntil} > now() or not ${k.downstreamIdempotent}))`;
  const retentionOver = sql`(${k.expiresAt} <= now() and not ${stillClaimed})`;
  // Evaluated against the existing row: who may take the key over.
  const takeover = sql`(${retentionOver} or (${k.requestHash} = excluded.request_hash and (
      ${k.status} = 'failed'
      or (${k.status} = 'in_progress' and ${k.lockedUntil} <= now() and ${k.downstreamIdempotent}))))`;
  const whenTakeover = (value: unknown, current: unknown) =>
    sql`case when ${takeover} then ${value} else ${current} end`;
  const whenRetentionOver = (value: unknown, current: unknown) =>
    sql`case when ${retentionOver} then ${value} else ${current} end`;

  return db
    .insert(k)
    .values({
      key: sql.placeholder('key'),
      scope: sql.placeholder('scope'),
      requestHash: sql.placeholder('requestHash'),
      status: 'in_progress',
      fencingToken: 1,
      holderClaim: sql.placeholder('holderClaim'),
      holder: sql.placeholder('holder'),
      begunBy: sql.placeholder('begunBy'),
      downstreamIdempotent: sql.placeholder('downstreamIdempotent'),
      taskId: sql.placeholder('taskId'),
      step: sql.placeholder('step'),
      lockedUntil: millisecondsFromNow('inProgressTtlMs'),
      // Retention counts from the end of the lock, so it cannot end before the claim does.
      expiresAt: sql`now() + make_interval(secs => (${sql.placeholder('inProgressTtlMs')}::double precision + ${sql.placeholder('retentionMs')}::double precision) / 1000)`,
      retentionMs: sql`${sql.placeholder('retentionMs')}::bigint`,
    })
    .onConflictDoUpdate({
      target: k.key,
      set: {
        claimCalls: sql`${k.claimCalls} + 1`,
        lastClaimedAt: sql`now()`,
        status: whenTakeover(sql`'in_progress'`, k.status),
        fencingToken: whenTakeover(sql`${k.fencingToken} + 1`, k.fencingToken),
        holderClaim: whenTakeover(sql`excluded.holder_claim`, k.holderClaim),
        holder: whenTakeover(sql`excluded.holder`, k.holder),
        // The API token of the claim that holds the key: only it may settle the key (settle-key.ts).
        begunBy: whenTakeover(sql`excluded.begun_by`, k.begunBy),
        lockedUntil: whenTakeover(sql`excluded.locked_until`, k.lockedUntil),
        expiresAt: whenTakeover(sql`excluded.expires_at`, k.expiresAt),
        retentionMs: whenTakeover(sql`excluded.retention_ms`, k.retentionMs),
        // A new holder may leave an uncertain outcome again: the escalation sweep may act on it anew.
        escalatedAt: whenTakeover(sql`null`, k.escalatedAt),
        updatedAt: whenTakeover(sql`now()`, k.updatedAt),
        // A key past retention is a new operation: it starts over with the new content.
        requestHash: whenRetentionOver(sql`excluded.request_hash`, k.requestHash),
        acquisitions: sql`case when ${retentionOver} then 1 when ${takeover} then ${k.acquisitions} + 1 else ${k.acquisitions} end`,
        result: whenRetentionOver(sql`null`, k.result),
        errorClass: whenRetentionOver(sql`null`, k.errorClass),
        errorText: whenRetentionOver(sql`null`, k.errorText),
      },
    })
    .returning({
      status: k.status,
      requestHash: k.requestHash,
      holderClaim: k.holderClaim,
      fencingToken: k.fencingToken,
      acquisitions: k.acquisitions,
      downstreamIdempotent: k.downstreamIdempotent,
      result: k.result,
      updatedAt: k.updatedAt,
      msUntilUnlocked: sql<number>`ceil(extract(epoch from (${k.lockedUntil} - now())) * 1000)`.as('ms_until_unlocked'),
    });
});

/**
 * Claims a raw key by the caller's name: stored under the raw prefix
 * (raw-key-name.ts), so it can never be a step key. Answers with the
 * caller's name. A raw key of a task acts for the task's stored agent.
 */
export async function claimKey(ctx: CoreContext, input: ClaimKeyInput): Promise<ClaimOutcome> {
  const parsed = parseInput(claimKeyInput, input);
  // A token limited to agents means its own agent's task, aliased when another agent's has the id (task-alias.ts).
  const taskId = parsed.taskId && (await resolveTaskForActor(ctx, parsed.taskId));
  const claim = { ...parsed, taskId };
  if (taskId) await enforceTokenLimits(ctx, () => agentOfTask(ctx.db, taskId));
  const outcome = await claimStoredKey(ctx, { ...claim, key: storedRawKey(claim.key) });
  return { ...outcome, key: claim.key };
}

/**
 * Claims a key by its stored name in one statement (the step engine's step
 * keys, and raw keys once prefixed). The INSERT's conflict on the primary key
 * is the only arbiter: the DO UPDATE always touches the row (counting the
 * call), and takes it over only when the current holder is gone, so the
 * returned row is the latest committed state and this claim is the holder if
 * and only if the row names this claim. Authorization is the caller's.
 */
export async function claimStoredKey(ctx: CoreContext, input: ClaimKeyInput): Promise<ClaimOutcome> {
  return claimCheckedKey(ctx, parseInput(claimKeyInput, input));
}

/** claimStoredKey for a claim its caller already validated (the step engine's begin): not parsed again. */
export async function claimCheckedKey(ctx: CoreContext, claim: ClaimKeyRequest): Promise<ClaimOutcome> {
  const claimId = randomUUID();
  const [claimed] = await claimStatement(ctx.db, {
    key: claim.key,
    scope: claim.scope,
    requestHash: claim.requestHash,
    holderClaim: claimId,
    holder: claim.holder ?? null,
    begunBy: ctx.actor?.id ?? null,
    downstreamIdempotent: claim.downstreamIdempotent,
    taskId: claim.taskId ?? null,
    step: claim.step ?? null,
    inProgressTtlMs: claim.inProgressTtlMs,
    retentionMs: claim.retentionMs ?? keyRetentionMs[claim.scope] ?? DEFAULT_RETENTION_MS,
  });
  if (!claimed) throw new Error('claimKey: the upsert returned no row');
  const row = {
    status: claimed.status,
    requestHash: claimed.request_hash,
    holderClaim: claimed.holder_claim,
    fencingToken: Number(claimed.fencing_token),
    acquisitions: Number(claimed.acquisitions),
    downstreamIdempotent: claimed.downstream_idempotent,
    result: claimed.result,
    updatedAt: new Date(claimed.updated_at),
    msUntilUnlocked: Number(claimed.ms_until_unlocked),
  };

  if (row.holderClaim === claimId) {
    return { outcome: 'acquired', key: claim.key, fencingToken: row.fencingToken, attemptNumber: row.acquisitions };
  }
  if (row.requestHash !== claim.requestHash) {
    throw new KeyPayloadMismatchError(
      `Key "${claim.key}" was first used with different content; a key names one operation and its content must not change`,
    );
  }
  if (row.status === 'completed') return { outcome: 'replay', key: claim.key, result: row.result };
  // in_progress: either a live holder, or an expired one whose downstream may not be repeated.
  if (row.msUntilUnlocked > 0) return { outcome: 'in_progress', key: claim.key, retryAfterMs: row.msUntilUnlocked };
  if (!row.downstreamIdempotent) {
    return { outcome: 'uncertain', key: claim.key, fencingToken: row.fencingToken, intentAt: row.updatedAt };
  }
  // Unreachable by the takeover rule; answered safely should the rule change.
  return { outcome: 'in_progress', key: claim.key, retryAfterMs: 0 };
}
