import { z } from 'zod';
import { finishedTaskStatuses } from '../enums';

export const finishTaskInput = z.strictObject({
  taskId: z.string().trim().min(1).max(200),
  /** completed: done; failed: given up by the agent itself; discarded: no longer wanted. */
  outcome: z.enum(finishedTaskStatuses),
});
export type FinishTaskInput = z.input<typeof finishTaskInput>;
