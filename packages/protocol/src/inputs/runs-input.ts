import { z } from 'zod';
import { agentName } from '../names';

/** A run's key: the worker's name for one execution of a task. */
export const runKey = z.string().trim().min(1).max(200);

export const startRunInput = z.strictObject({
  runKey,
  taskId: z.string().trim().min(1).max(200),
  agent: agentName,
});

export const finishRunInput = z.strictObject({ runKey, status: z.enum(['finished', 'failed']) });
