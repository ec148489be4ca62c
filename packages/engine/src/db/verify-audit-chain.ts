import type postgres from 'postgres';
import { auditRecordHash, GENESIS_HASH, type AuditRecordText } from './audit-chain-hash';

/**
 * Walks the audit chain in position order and recomputes every hash, so that a
 * record changed, removed or slipped in by someone who could bypass the
 * append-only triggers is found. Removing the newest records leaves a shorter,
 * whole chain: compare the head hash with one kept elsewhere to catch that.
 */

export type ChainVerdict =
  | { whole: true; records: number; headPosition: number; headHash: string }
  | { whole: false; recordId: string; position: string | null; problem: string };

const BATCH = 1_000;

interface StoredRecord extends AuditRecordText {
  recordHash: string | null;
}

export async function verifyAuditChain(sql: postgres.Sql): Promise<ChainVerdict> {
  // A record without a position was written with the linking trigger set aside.
  const [unlinked] = await sql<
    { id: string }[]
  >`select id::text from audit_log where chain_position is null order by id limit 1`;
  if (unlinked)
    return {
      whole: false,
      recordId: unlinked.id,
      position: null,
      problem: 'it has no place in the chain (written with the chain trigger disabled)',
    };

  let expectedPosition = 1n;
  let previousHash = GENESIS_HASH;
  let records = 0;
  while (true) {
    const batch = await readBatch(sql, expectedPosition - 1n);
    for (const record of batch) {
      const problem = findProblem(record, expectedPosition, previousHash);
      if (problem) return { whole: false, recordId: record.id, position: record.chainPosition, problem };
      previousHash = record.recordHash ?? '';
      expectedPosition += 1n;
      records += 1;
    }
    if (batch.length < BATCH) break;
  }
  return { whole: true, records, headPosition: Number(expectedPosition - 1n), headHash: previousHash };
}

function findProblem(record: StoredRecord, expectedPosition: bigint, previousHash: string): string | undefined {
  const position = BigInt(record.chainPosition);
  if (position !== expectedPosition) {
    const missing = position - expectedPosition;
    return `a gap: position ${expectedPosition} was expected, so ${missing === 1n ? `record ${expectedPosition} is` : `records ${expectedPosition}..${position - 1n} are`} missing`;
  }
  if (record.previousHash !== previousHash) {
    return `a wrong previous hash: it names ${record.previousHash ?? 'none'}, the record before it hashes to ${previousHash}`;
  }
  const recomputed = auditRecordHash(record);
  if (record.recordHash !== recomputed) {
    return `changed fields: its fields hash to ${recomputed}, not the ${record.recordHash ?? 'missing'} written with it`;
  }
  return undefined;
}

async function readBatch(sql: postgres.Sql, afterPosition: bigint): Promise<StoredRecord[]> {
  // Every value as PostgreSQL's text, the time in UTC: the same text the trigger hashed,
  // whatever this session's TimeZone or DateStyle.
  return sql<StoredRecord[]>`
    select id::text as "id", chain_position::text as "chainPosition", previous_hash as "previousHash",
      record_hash as "recordHash",
      to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "occurredAt",
      actor_type as "actorType", actor_id as "actorId", action, target_type as "targetType",
      target_id as "targetId", reason, before::text as "before", after::text as "after"
    from audit_log
    where chain_position > ${afterPosition.toString()}::bigint
    order by chain_position
    limit ${BATCH}`;
}

export function describeVerdict(verdict: ChainVerdict): string {
  if (verdict.whole) {
    return verdict.records === 0
      ? 'Audit chain whole: no records yet'
      : `Audit chain whole: ${verdict.records} record${verdict.records === 1 ? '' : 's'}, positions 1..${verdict.headPosition}, head hash ${verdict.headHash}`;
  }
  return `Audit chain broken at record id ${verdict.recordId} (position ${verdict.position ?? 'none'}): ${verdict.problem}`;
}
