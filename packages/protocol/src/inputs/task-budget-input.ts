import { z } from 'zod';
import { holdOwner } from './hold-input';
import { taskSpendMicros } from '../money-limits';
import { agentName, queueName } from '../names';

/** A task's allowance, given with its first step; later steps' values are ignored (the first stands). */
export const taskBudgetInput = z.strictObject({
  taskId: z.string().trim().min(1).max(200),
  agent: agentName,
  /** The queue the task runs on; its agent's name when left out. Stored once, with the agent. */
  queue: queueName.optional(),
  owner: holdOwner,
  /** The task that started this one (a sub-agent's parent); it must be a task the caller may act for. */
  parentTaskId: z.string().trim().min(1).max(200).optional(),
  retryAllowance: z.number().int().min(0).max(1_000).default(5),
  spendCeilingMicros: taskSpendMicros.default(5_000_000),
  timeAllowanceMs: z
    .number()
    .int()
    .min(1_000)
    .max(30 * 24 * 3_600_000)
    .default(24 * 3_600_000),
});
export type TaskBudgetInput = z.input<typeof taskBudgetInput>;
