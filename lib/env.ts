import { z } from 'zod';
import type { CorePolicy } from './core/context';
import { parseAllowList } from './alerts/outbound-address';

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

const secret = (minimum: number) => z.string().min(minimum, `must be at least ${minimum} characters`);

export const environmentSchema = z
  .object({
    DATABASE_URL: z.preprocess(emptyAsUnset, postgresUrl.optional()),
    /**
     * The role migrations run as, owner of every table (see README, Security). DATABASE_URL is then
     * the application's role, which owns nothing and may only read and append to the audit log.
     */
    DATABASE_MIGRATION_URL: z.preprocess(emptyAsUnset, postgresUrl.optional()),
    /**
     * A streaming replica of DATABASE_URL's database (optional): the console's read models (Overview, Steps, a
     * step's detail, a task's timeline, the lists) are read from it; every action, and every read inside one, stays
     * on DATABASE_URL. Same role and password as DATABASE_URL on most setups.
     */
    DATABASE_READ_URL: z.preprocess(emptyAsUnset, postgresUrl.optional()),
    /** The most a replica may lag (seconds, measured on the replica) before the console reads from the primary instead. */
    HOLDFAST_READ_MAX_LAG_SECONDS: z.preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(3_600).default(30)),
    /**
     * The address people and agents reach Holdfast at (e.g. https://holdfast.example.com): its host is accepted besides
     * loopback names, and alert notifications link to the console under it (http://localhost:<PORT> when unset: publicUrlOf).
     */
    HOLDFAST_PUBLIC_URL: z.preprocess(emptyAsUnset, z.string().url().optional()),
    /**
     * Internal destinations alert channels may reach (comma-separated CIDRs, addresses or host names, e.g.
     * `127.0.0.1,10.20.0.0/16,relay.internal`): by default a channel reaches only public addresses.
     */
    HOLDFAST_ALERT_ALLOWED_HOSTS: z.preprocess(
      emptyAsUnset,
      z
        .string()
        .default('')
        .superRefine((value, context) => {
          try {
            parseAllowList(value);
          } catch (error) {
            context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
          }
        }),
    ),
    /** `1`: trust X-Forwarded-Host and X-Forwarded-Proto from a reverse proxy in front (off by default). */
    HOLDFAST_TRUST_FORWARDED_HEADERS: z.preprocess(emptyAsUnset, z.enum(['0', '1']).default('0')),
    /** `1`: allow demo sign-in where others can reach it (a warning banner shows on every page). Never for production. */
    HOLDFAST_INSECURE_DEMO: z.preprocess(emptyAsUnset, z.enum(['0', '1']).default('0')),
    /** Where the dashboard listens; loopback by default, 0.0.0.0 to serve other machines. */
    HOST: z.preprocess(emptyAsUnset, z.string().min(1).default('127.0.0.1')),
    PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(65535).default(3000)),
    HOLDFAST_DATA_DIR: z.preprocess(emptyAsUnset, z.string().default('.data/postgres')),
    HOLDFAST_DEMO_DATA: z.preprocess(emptyAsUnset, z.enum(['auto', 'on', 'off']).default('auto')),
    /** The live demo fleet on pg-boss: `auto` runs it with the embedded database only. */
    HOLDFAST_DEMO: z.preprocess(emptyAsUnset, z.enum(['auto', 'on', 'off']).default('auto')),
    /**
     * Seconds a running bulk redrive's heartbeat may stay quiet (its instance died or stopped) before the sweep of any
     * instance carries it on.
     */
    HOLDFAST_BULK_REDRIVE_STALLED_SECONDS: z.preprocess(
      emptyAsUnset,
      z.coerce.number().int().min(2).max(3_600).default(30),
    ),
    /**
     * On SIGTERM/SIGINT: seconds requests already in flight may take to finish before their connections are closed
     * (new connections are refused at once and /api/health answers 503, so a load balancer stops sending).
     */
    HOLDFAST_DRAIN_SECONDS: z.preprocess(emptyAsUnset, z.coerce.number().min(0).max(60).default(5)),
    /**
     * How long the demo fleet's lease lasts unrenewed: with several instances on one database one runs the fleet,
     * and another takes it over within about this long after that one dies.
     */
    HOLDFAST_DEMO_FLEET_LEASE_SECONDS: z.preprocess(emptyAsUnset, z.coerce.number().min(1).max(600).default(30)),
    /** How often `npm start` runs the due sweeps; 0 turns them off (run `npm run sweep` instead). */
    HOLDFAST_SWEEP_INTERVAL_SECONDS: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(86_400).default(60)),
    /** Days without a state change after which an active task is frozen for its owner. */
    HOLDFAST_FROZEN_AFTER_DAYS: z.preprocess(emptyAsUnset, z.coerce.number().min(0.01).max(365).default(3)),
    /** Days of raw attempts kept; older days are dropped whole (their rollups stay). */
    HOLDFAST_ATTEMPT_RETENTION_DAYS: z.preprocess(emptyAsUnset, z.coerce.number().int().min(2).max(3_650).default(30)),
    /** Days of hourly and daily rollups kept; must be longer than the raw attempts. */
    HOLDFAST_ROLLUP_RETENTION_DAYS: z.preprocess(emptyAsUnset, z.coerce.number().int().min(2).max(36_500).default(400)),
    /** Redrive brakes: redrives per task in all, minutes between two, and the oldest task (days) redriven. */
    HOLDFAST_REDRIVE_MAX: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(1_000).default(3)),
    HOLDFAST_REDRIVE_COOLDOWN_MINUTES: z.preprocess(emptyAsUnset, z.coerce.number().min(0).max(10_080).default(10)),
    HOLDFAST_REDRIVE_MAX_AGE_DAYS: z.preprocess(emptyAsUnset, z.coerce.number().min(0.01).max(3_650).default(7)),
    /**
     * The agent API's rate limit for a token that sets none of its own (settings, API tokens): requests per second
     * (the bucket's refill) and burst (its size). Generous: it stops a runaway agent, not a busy fleet.
     */
    HOLDFAST_AGENT_RATE_PER_SECOND: z.preprocess(emptyAsUnset, z.coerce.number().min(0.01).max(100_000).default(200)),
    HOLDFAST_AGENT_RATE_BURST: z.preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(1_000_000).default(2_000)),
    /** GET /metrics: each agent's busiest steps keep their own series, up to this many; the rest share step "other". */
    HOLDFAST_METRICS_MAX_STEPS_PER_AGENT: z.preprocess(
      emptyAsUnset,
      z.coerce.number().int().min(1).max(10_000).default(100),
    ),
    /** Minutes an uncertain key may wait for its redelivery before it is held for its task's owner. */
    HOLDFAST_UNCERTAIN_ESCALATE_MINUTES: z.preprocess(emptyAsUnset, z.coerce.number().min(1).max(10_080).default(15)),
    /** Minutes the sweeper may keep refusing to release a stale lock before it is held for the run's owner. */
    HOLDFAST_STALE_LOCK_ESCALATE_MINUTES: z.preprocess(emptyAsUnset, z.coerce.number().min(1).max(10_080).default(30)),
    /** Owner of holds on items that name no task owner (keys and locks claimed outside a task), and of work an agent names an unknown owner for. */
    HOLDFAST_DEFAULT_OWNER: z.preprocess(
      emptyAsUnset,
      z
        .string()
        .regex(/^(person|team):\S.*$/, 'must be person:<email> or team:<name>')
        .default('team:platform'),
    ),
    /** demo: a sign-in page listing the demo people; proxy: identity from a trusted SSO proxy's headers. */
    AUTH_MODE: z.preprocess(emptyAsUnset, z.enum(['demo', 'proxy']).optional()),
    /** Signs session cookies; `npm start` creates and keeps one in .data/ when unset. */
    SESSION_SECRET: z.preprocess(emptyAsUnset, secret(32).optional()),
    AUTH_PROXY_SECRET: z.preprocess(emptyAsUnset, secret(16).optional()),
    AUTH_PROXY_SECRET_HEADER: z.preprocess(emptyAsUnset, z.string().toLowerCase().default('x-holdfast-proxy-secret')),
    AUTH_PROXY_EMAIL_HEADER: z.preprocess(emptyAsUnset, z.string().toLowerCase().default('x-forwarded-email')),
    AUTH_PROXY_GROUPS_HEADER: z.preprocess(emptyAsUnset, z.string().toLowerCase().default('x-forwarded-groups')),
    /** `group=role` pairs, comma-separated: `sre=admin,oncall=responder`. Anyone else is a viewer. */
    AUTH_PROXY_ROLE_MAP: z.preprocess(emptyAsUnset, z.string().default('')),
    AUTH_PROXY_SIGN_OUT_URL: z.preprocess(emptyAsUnset, z.string().url().optional()),
  })
  .superRefine((env, context) => {
    if (env.HOLDFAST_ROLLUP_RETENTION_DAYS < env.HOLDFAST_ATTEMPT_RETENTION_DAYS) {
      context.addIssue({
        code: 'custom',
        path: ['HOLDFAST_ROLLUP_RETENTION_DAYS'],
        message: 'must be at least HOLDFAST_ATTEMPT_RETENTION_DAYS: rollups are what remains of old attempts',
      });
    }
    if (env.AUTH_MODE === 'proxy' && !env.AUTH_PROXY_SECRET) {
      context.addIssue({
        code: 'custom',
        path: ['AUTH_PROXY_SECRET'],
        message: 'is required with AUTH_MODE=proxy: proxy headers are trusted only with it',
      });
    }
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

/** The library's tunable rules, from the environment. */
export function corePolicyFrom(env: Environment): CorePolicy {
  return {
    redriveBrakes: {
      maxRedrives: env.HOLDFAST_REDRIVE_MAX,
      cooldownMs: env.HOLDFAST_REDRIVE_COOLDOWN_MINUTES * 60_000,
      maxTaskAgeMs: env.HOLDFAST_REDRIVE_MAX_AGE_DAYS * 86_400_000,
    },
    attemptRetentionMs: env.HOLDFAST_ATTEMPT_RETENTION_DAYS * 86_400_000,
    defaultOwner: env.HOLDFAST_DEFAULT_OWNER,
  };
}

/**
 * Where the console is reached, for links sent outside it (alert notifications). Unset, it is this machine's
 * own address, right for a trial; a deployment sets HOLDFAST_PUBLIC_URL. Kept apart from the variable's value
 * (which stays optional) because an unset variable also means "no public host" to the host check.
 */
export function publicUrlOf(env: Pick<Environment, 'HOLDFAST_PUBLIC_URL' | 'PORT'>): string {
  return (env.HOLDFAST_PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
}

let cached: Environment | undefined;

/** The validated environment of this process, read once. */
export function getEnvironment(): Environment {
  cached ??= parseEnvironment(process.env);
  return cached;
}

/** The sign-in mode `npm start` serves: demo by default on the embedded database, none otherwise. */
export function effectiveAuthMode(env: Environment): 'demo' | 'proxy' | undefined {
  return env.AUTH_MODE ?? (env.DATABASE_URL ? undefined : 'demo');
}

/** 127.0.0.0/8, ::1 and localhost: addresses other machines cannot reach. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

const insecureHint = 'set HOLDFAST_INSECURE_DEMO=1 only for a throwaway trial';

/**
 * Serving the console needs a sign-in mode that guards it: there is never a
 * silently open console. Demo sign-in lets anyone who reaches the port be the
 * admin, so it is only allowed where nobody else can reach it: the embedded
 * database on a loopback address. (Commands such as db:migrate do not serve it.)
 */
export function assertConsoleIsGuarded(env: Environment): void {
  if (env.DATABASE_URL && !env.AUTH_MODE) {
    throw new EnvironmentError(
      'Invalid environment: AUTH_MODE: must be set (demo or proxy) when DATABASE_URL is set: Holdfast never serves an open console',
    );
  }
  if (effectiveAuthMode(env) !== 'demo' || env.HOLDFAST_INSECURE_DEMO === '1') return;
  if (env.DATABASE_URL) {
    throw new EnvironmentError(
      `Invalid environment: AUTH_MODE: demo sign-in lets anyone in as the admin, so it runs only on the embedded database; use AUTH_MODE=proxy with DATABASE_URL (or ${insecureHint})`,
    );
  }
  if (!isLoopbackAddress(env.HOST)) {
    throw new EnvironmentError(
      `Invalid environment: HOST: demo sign-in lets anyone in as the admin, so it listens on a loopback address only (127.0.0.1, localhost, ::1), not ${env.HOST}; use AUTH_MODE=proxy (or ${insecureHint})`,
    );
  }
}

/** True when demo sign-in was allowed past the guard by HOLDFAST_INSECURE_DEMO=1: every page then says so. */
export function isInsecureDemo(env: Environment): boolean {
  return effectiveAuthMode(env) === 'demo' && env.HOLDFAST_INSECURE_DEMO === '1';
}

export const INSECURE_DEMO_WARNING =
  'WARNING: HOLDFAST_INSECURE_DEMO=1: demo sign-in is on where others may reach it; anyone who reaches this port can sign in as the admin';
