import { z } from 'zod';

/**
 * The one place Holdfast reads its environment. Every variable is validated
 * here so that a wrong value stops start-up with a message naming it, instead
 * of failing later somewhere far from the cause.
 */

const postgresUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be a URL of the form postgres://user@host:port/database');

const emptyAsUnset = (value: unknown) => (value === '' ? undefined : value);

export const environmentSchema = z.object({
  DATABASE_URL: z.preprocess(emptyAsUnset, postgresUrl.optional()),
  /** Where the dashboard listens; loopback by default, 0.0.0.0 to serve other machines. */
  HOST: z.preprocess(emptyAsUnset, z.string().min(1).default('127.0.0.1')),
  PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(65535).default(3000)),
  HOLDFAST_DATA_DIR: z.preprocess(emptyAsUnset, z.string().default('.data/postgres')),
  HOLDFAST_DEMO_DATA: z.preprocess(emptyAsUnset, z.enum(['auto', 'on', 'off']).default('auto')),
  /** How often `npm start` runs the due sweeps; 0 turns them off (run `npm run sweep` instead). */
  HOLDFAST_SWEEP_INTERVAL_SECONDS: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(86_400).default(60)),
  /** Days without a state change after which an active task is frozen for its owner. */
  HOLDFAST_FROZEN_AFTER_DAYS: z.preprocess(emptyAsUnset, z.coerce.number().min(0.01).max(365).default(3)),
});

export type Environment = z.infer<typeof environmentSchema>;

export class EnvironmentError extends Error {
  readonly code = 'INVALID_ENVIRONMENT';
}

/** Parses the given variables; throws an EnvironmentError whose message is one line. */
export function parseEnvironment(source: Record<string, string | undefined>): Environment {
  const result = environmentSchema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.');
    return `${variable}: ${issue.message}`;
  });
  throw new EnvironmentError(`Invalid environment: ${problems.join('; ')}`);
}

let cached: Environment | undefined;

/** The validated environment of this process, read once. */
export function getEnvironment(): Environment {
  cached ??= parseEnvironment(process.env);
  return cached;
}
