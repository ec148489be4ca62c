import { z } from 'zod';
import { agentName, poolStepName } from '../names';
import { holdOwner } from './hold-input';

/** Schemas only (the console's form imports them). */

const reason = z.string().trim().min(1, 'say why').max(2_000, 'must be at most 2,000 characters');

/** Whether a runbook address is one a person can open: http(s), or a path of this console (`/runbooks/...`). */
export function isRunbookAddress(text: string): boolean {
  if (/^\/[^/\\]/.test(text)) return true;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** An address a person can open; nothing else is ever made a link. */
const runbookUrl = z
  .string()
  .trim()
  .max(2_000, 'must be at most 2,000 characters')
  .refine(isRunbookAddress, 'must be an http or https address, or a path of this console such as /runbooks/...');

/**
 * Who answers for an agent's steps (step `*`) or for one step where it differs: a known team or person, how to
 * reach whoever is on call, and the runbook to open first. Blank contact or runbook: none.
 */
export const saveStepOwnerInput = z.strictObject({
  agent: agentName,
  step: poolStepName,
  owner: holdOwner,
  contact: z
    .string()
    .trim()
    .max(200, 'must be at most 200 characters')
    .optional()
    .transform((text) => text || undefined),
  runbookUrl: z
    .union([z.literal(''), runbookUrl])
    .optional()
    .transform((text) => text || undefined),
  reason,
});
export type SaveStepOwnerInput = z.input<typeof saveStepOwnerInput>;

export const removeStepOwnerInput = z.strictObject({ agent: agentName, step: poolStepName, reason });
export type RemoveStepOwnerInput = z.input<typeof removeStepOwnerInput>;
