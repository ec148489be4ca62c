import { z } from 'zod';
import { deadLetterReasons, errorClasses } from '../enums';
import { agentName, queueName, stepName } from '../names';
import { int4, MICROS_MAX } from '../validation';

export const MAX_PAYLOAD_BYTES = 256 * 1024;

export const deadLetterInput = z.strictObject({
  taskId: z.string().trim().min(1).max(200),
  agent: agentName,
  step: stepName,
  queue: queueName,
  payload: z
    .unknown()
    .refine((value) => value !== undefined, 'is required')
    .refine(
      (value) => (JSON.stringify(value) ?? '').length <= MAX_PAYLOAD_BYTES,
      `must serialise to at most ${MAX_PAYLOAD_BYTES / 1024} KiB`,
    ),
  reason: z.enum(deadLetterReasons),
  errorClass: z.enum(errorClasses),
  lastError: z.string().trim().min(1).max(10_000),
  attempts: int4(1),
  spendMicros: z.number().int().min(0).max(MICROS_MAX),
  owner: z.string().trim().min(1),
});
export type DeadLetterTaskInput = z.input<typeof deadLetterInput>;
