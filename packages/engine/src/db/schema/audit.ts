import { sql } from 'drizzle-orm';
import { bigint, bigserial, check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ActorType } from '@holdfast/protocol/enums';
export { actorTypes, type ActorType } from '@holdfast/protocol/enums';

/**
 * Append-only account of every operator and sweeper action. A trigger (see the
 * audit_log_append_only migration) refuses UPDATE, DELETE and TRUNCATE.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull().defaultNow(),
    actorType: text('actor_type').$type<ActorType>().notNull(),
    actorId: text('actor_id').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    reason: text('reason'),
    before: jsonb('before'),
    after: jsonb('after'),
    /**
     * Tamper evidence: the record's place in the audit chain, the hash of the record
     * before it, and its own hash over its fields and that previous hash. Set by a
     * trigger on insert (see the audit chain migration); `npm run audit:verify` checks them.
     */
    chainPosition: bigint('chain_position', { mode: 'number' }),
    previousHash: text('previous_hash'),
    recordHash: text('record_hash'),
  },
  (table) => [
    check('audit_log_actor_type_known', sql`${table.actorType} in ('person', 'agent', 'system')`),
    // Serves "history of this hold / lock / dead letter".
    index('audit_log_target_type_target_id_occurred_at_idx').on(table.targetType, table.targetId, table.occurredAt),
    // One record per place in the chain; serves audit:verify's walk.
    uniqueIndex('audit_log_chain_position_idx').on(table.chainPosition),
    // Serves the audit page, newest first.
    index('audit_log_occurred_at_idx').on(table.occurredAt),
  ],
);

export type AuditRecord = typeof auditLog.$inferSelect;
