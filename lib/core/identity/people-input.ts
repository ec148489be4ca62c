import { z } from 'zod';
import { personEmail } from '../../auth/email';
import { roles } from '../../db/schema/enums';

const teamName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'use lowercase letters, digits, _ and -')
  .max(60);

export const createPersonInput = z.strictObject({
  email: personEmail,
  displayName: z.string().trim().min(1).max(100),
  role: z.enum(roles),
  teams: z.array(teamName).max(50).default([]),
});
