import { sql } from 'drizzle-orm';
import { check, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Who answers for an agent's steps, as an admin named them: the owner (a known team or person), how to reach
 * whoever is on call, and the runbook to open first. Step `*` covers every step of the agent; a row for one step
 * wins over it. Where no row names one, a step's owner is what its agent declares: the owner of its newest task
 * (lib/queries/step-owners.ts).
 */
export const stepOwners = pgTable(
  'step_owners',
  {
    agent: text('agent').notNull(),
    /** One step's name, or `*` for every step of the agent. */
    step: text('step').notNull(),
    owner: text('owner').notNull(),
    /** An on-call contact or rotation, as people page it ("payments-primary on PagerDuty"). */
    contact: text('contact'),
    runbookUrl: text('runbook_url'),
    updatedBy: text('updated_by').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: 'step_owners_pkey', columns: [table.agent, table.step] }),
    check('step_owners_owner_named', sql`${table.owner} ~ '^(person|team):.+'`),
    check('step_owners_contact_length', sql`char_length(${table.contact}) <= 200`),
    // An http(s) address, or a path of this console (a runbook under /runbooks).
    check(
      'step_owners_runbook_url',
      sql`${table.runbookUrl} ~ '^(https?://|/[^/])' and char_length(${table.runbookUrl}) <= 2000`,
    ),
  ],
);

export type StepOwner = typeof stepOwners.$inferSelect;
