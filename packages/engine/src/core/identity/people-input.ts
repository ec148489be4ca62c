import { z } from 'zod';
import { personEmail } from './email';
import { roles } from '@holdfast/protocol/enums';

const teamName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'use lowercase letters, digits, _ and -')
  .max(60);

/** Why a person's role, teams or name changed: kept in the audit record beside exactly what changed. */
export const personChangeReason = z
  .string()
  .trim()
  .min(3, 'say why, in at least 3 characters')
  .max(500, 'must be at most 500 characters');

/**
 * Adds a person or changes one. `reason` is optional here only because adding
 * someone (the demo seed, an SSO first sign-in) may not need one; changing an
 * existing person's role, teams or name without one is refused by `savePerson`.
 */
export const savePersonInput = z.strictObject({
  email: personEmail,
  displayName: z.string().trim().min(1).max(100),
  role: z.enum(roles),
  teams: z.array(teamName).max(50).default([]),
  reason: personChangeReason.optional(),
});

/** The same schema under its earlier name. */
export const createPersonInput = savePersonInput;
