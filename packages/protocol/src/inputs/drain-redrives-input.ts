import { z } from 'zod';
import { queueName } from '../names';

export const claimRedrivesInput = z.strictObject({
  /** Only redrives for these queues: a drainer takes what its own queues carry. All queues when absent. */
  queues: z.array(queueName).min(1).max(50).optional(),
  limit: z.number().int().min(1).max(500).default(50),
  /** How long the claimed rows stay hidden from other drainers before they are due again. */
  leaseMs: z.number().int().min(1_000).max(3_600_000).default(60_000),
});

export const acknowledgeRedriveInput = z.strictObject({ outboxKey: z.string().trim().min(1).max(300) });
