import { sql } from 'drizzle-orm';
import { check, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { type StepCostSourceName, stepCostSourceNames } from '@holdfast/protocol/enums';

export { type StepCostSourceName, stepCostSourceNames };

/**
 * How each step's attempts were costed (reported, priced, rule, none, unrecorded), with the latest start among
 * them: the Steps page's cost source column, filter and CSV field. Kept by the rollup pass from the attempts it
 * rolls (packages/engine/src/rollups/step-sources.ts), as step_sources, so recording an attempt writes nothing more;
 * a way no kept attempt was costed any more goes with the attempt log's expired days.
 */
export const stepCostSources = pgTable(
  'step_cost_sources',
  {
    agent: text('agent').notNull(),
    step: text('step').notNull(),
    costSource: text('cost_source').$type<StepCostSourceName>().notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ name: 'step_cost_sources_pkey', columns: [table.agent, table.step, table.costSource] }),
    check(
      'step_cost_sources_known',
      sql`${table.costSource} in (${sql.raw(stepCostSourceNames.map((source) => `'${source}'`).join(', '))})`,
    ),
  ],
);
