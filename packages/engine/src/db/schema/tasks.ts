import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { TaskStatus } from '@holdfast/protocol/enums';
export { taskStatuses, finishedTaskStatuses, type TaskStatus, type FinishedTaskStatus } from '@holdfast/protocol/enums';

/**
 * One retry allowance per task, shared by all its steps, with a spend ceiling
 * and a wall-clock deadline that retries count against.
 */
export const taskBudgets = pgTable(
  'task_budgets',
  {
    taskId: text('task_id').primaryKey(),
    /**
     * The agent and queue the task was first seen with. Stored once and never changed by a
     * later request: every operation on the task or its keys is authorized against them.
     */
    agent: text('agent').notNull(),
    queue: text('queue').notNull(),
    /** Who gets this task's holds: `person:<email>` or `team:<name>`. */
    owner: text('owner').notNull(),
    /**
     * The task that started this one (a sub-agent's task names its parent's), as its first begin said. Stored
     * once; not a foreign key, so a parent's retention never takes its sub-tasks with it.
     */
    parentTaskId: text('parent_task_id'),
    /** Retries the task may make, across all its steps, per allowance. */
    retryAllowance: integer('retry_allowance').notNull(),
    retriesUsed: integer('retries_used').notNull().default(0),
    /** What the task may spend per allowance, in micro-dollars; retries count against it. */
    spendCeilingMicros: bigint('spend_ceiling_micros', { mode: 'number' }).notNull(),
    spendMicros: bigint('spend_micros', { mode: 'number' }).notNull().default(0),
    /**
     * Spend set aside by attempts that are running: each begin reserves its
     * estimate with one guarded UPDATE (spend + reserved + estimate <= ceiling)
     * and its finish swaps the estimate for the actual cost.
     */
    reservedMicros: bigint('reserved_micros', { mode: 'number' }).notNull().default(0),
    /** Wall-clock time per allowance; the deadline is set from it at creation and at each redrive. */
    timeAllowanceMs: bigint('time_allowance_ms', { mode: 'number' }).notNull(),
    deadline: timestamp('deadline', { withTimezone: true }).notNull(),
    status: text('status').$type<TaskStatus>().notNull().default('active'),
    /** When the task ended completed, failed or discarded. */
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** Redrives so far and the latest one: the redrive brakes read them. */
    redrivesUsed: integer('redrives_used').notNull().default(0),
    lastRedriveAt: timestamp('last_redrive_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Last state change; the frozen sweep looks for tasks where it is old. */
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check(
      'task_budgets_status_known',
      sql`${table.status} in ('active', 'frozen', 'dead_lettered', 'completed', 'failed', 'discarded')`,
    ),
    // The allowance is consumed with a guarded UPDATE; this makes over-consumption impossible even for other writers.
    check('task_budgets_retries_within_allowance', sql`${table.retriesUsed} between 0 and ${table.retryAllowance}`),
    check(
      'task_budgets_spend_not_negative',
      sql`${table.spendMicros} >= 0 and ${table.spendCeilingMicros} >= 0 and ${table.reservedMicros} >= 0`,
    ),
    check('task_budgets_owner_named', sql`${table.owner} ~ '^(person|team):.+'`),
    // Serves the frozen sweep: active tasks by last change.
    index('task_budgets_active_updated_at_idx').on(table.updatedAt).where(sql`${table.status} = 'active'`),
    // Serves a step's declared owner: its agent's newest task.
    index('task_budgets_agent_created_at_idx').on(table.agent, table.createdAt.desc()),
    // Serves a task's page: its sub-tasks.
    index('task_budgets_parent_task_id_idx').on(table.parentTaskId).where(sql`${table.parentTaskId} is not null`),
  ],
);

export type TaskBudget = typeof taskBudgets.$inferSelect;

/** The paths that can see a task first: a step begin, an attempt report, a trace span, a dead letter sent by an agent. */
export const taskFirstPaths = ['step', 'attempt', 'span', 'dead_letter'] as const;
export type TaskFirstPath = (typeof taskFirstPaths)[number];

/**
 * Who each task belongs to: the agent and queue it was first seen with, whichever path saw it first (DOMAIN
 * invariant 17). One row per task id ever seen, written in the same statement as the first thing stored for it
 * (task_budgets' row, an attempt, a span) and never changed, so no path can give a task a second agent.
 * task_budgets keeps a copy of the two names for the step engine's own reads; both are written together.
 */
export const taskAgents = pgTable(
  'task_agents',
  {
    taskId: text('task_id').primaryKey(),
    agent: text('agent').notNull(),
    /** Spans and attempt reports name no queue: their tasks are on the agent's default queue, its name. */
    queue: text('queue').notNull(),
    firstSeenThrough: text('first_seen_through').$type<TaskFirstPath>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('task_agents_first_path_known', sql`${table.firstSeenThrough} in ('step', 'attempt', 'span', 'dead_letter')`),
  ],
);
