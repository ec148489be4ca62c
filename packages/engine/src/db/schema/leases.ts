import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** One row per (job, time bucket): whoever inserts it does that bucket's pass. */
export const leases = pgTable(
  'leases',
  {
    job: text('job').notNull(),
    bucket: text('bucket').notNull(),
    holder: text('holder').notNull(),
    acquiredAt: timestamp('acquired_at', { withTimezone: true }).notNull().defaultNow(),
    /** A holder that dies leaves the pass unfinished; after this another may take it. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [primaryKey({ name: 'leases_pkey', columns: [table.job, table.bucket] })],
);
