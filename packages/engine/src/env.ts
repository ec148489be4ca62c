import { z } from 'zod';
import type { CorePolicy } from './core/kernel/context';
import { parseAllowList } from './net/outbound-address';
import { withFirstHost } from './db/url-hosts';

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
      // A multi-host URL (`db1:5432,db2:5432`) is read by its first host: `new URL` refuses a list of ports.
      const url = new URL(withFirstHost(value));
      return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be a URL of the form postgres://user@host:port/database');

const emptyAsUnset = (value: unknown) => (value === '' ? undefined : value);

const secret = (minimum: number) => z.string().min(minimum, `must be at least ${minimum} characters`);

/** Each variable's `.describe()` is its meaning in docs/operations/configuration.md, generated from here (`npm run docs:config`). */
export const environmentSchema = z
  .object({
    DATABASE_URL: z
      .preprocess(emptyAsUnset, postgresUrl.optional())
      .describe(
        '`postgres://user:password@host:port/database` of any PostgreSQL 15 or newer, or a Unix socket named as libpq names one: `postgres://user@localhost:5432/database?host=/var/run/postgresql` (cheaper per statement than TCP on one machine). Several hosts for a high-availability pair: `postgres://user:password@db1:5432,db2:5432/database?target_session_attrs=primary`. Behind PgBouncer in transaction mode add `prepare=false` (docs/operations/poolers.md). Unset: an embedded PostgreSQL 17 is started.',
      ),
    DATABASE_MIGRATION_URL: z
      .preprocess(emptyAsUnset, postgresUrl.optional())
      .describe(
        "The role migrations run as, owner of every table (see Database roles); `DATABASE_URL` is then the application's role, which owns nothing and may only read and append to the audit log.",
      ),
    DATABASE_SESSION_URL: z
      .preprocess(emptyAsUnset, postgresUrl.optional())
      .describe(
        'The same database reached without a transaction-mode pooler (directly, or through a pool in session mode): the in-flight Idempotency-Key locks and the migration lock are session locks and live on it, one connection per instance. Set it when `DATABASE_URL` goes through PgBouncer in transaction mode (docs/operations/poolers.md); unset: `DATABASE_URL`.',
      ),
    DATABASE_READ_URL: z
      .preprocess(emptyAsUnset, postgresUrl.optional())
      .describe(
        "A streaming replica of the primary (optional): the console's read models (Overview, Steps, a step's detail, a task's timeline, the lists) are read from it; every action, and every read inside one, stays on `DATABASE_URL`. Same role and password as `DATABASE_URL` on most setups.",
      ),
    HOLDFAST_READ_MAX_LAG_SECONDS: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(3_600).default(30))
      .describe(
        'The most the replica may lag (seconds, measured on the replica) before the console reads from the primary instead.',
      ),
    HOLDFAST_PUBLIC_URL: z
      .preprocess(emptyAsUnset, z.string().url().optional())
      .describe(
        'The address people and agents reach Holdfast at (e.g. `https://holdfast.example.com`): its host is accepted besides loopback names, and alert notifications link to the console and its runbooks under it (unset: `http://localhost:$PORT`).',
      ),
    HOLDFAST_ALERT_ALLOWED_HOSTS: z
      .preprocess(
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
      )
      .describe(
        'Internal destinations alert channels may reach: CIDRs, addresses or host names, comma-separated (e.g. `127.0.0.1,10.20.0.0/16,relay.internal`). By default a channel reaches only public addresses.',
      ),
    HOLDFAST_TRUST_FORWARDED_HEADERS: z
      .preprocess(emptyAsUnset, z.enum(['0', '1']).default('0'))
      .describe('`1`: trust `X-Forwarded-Host` and `X-Forwarded-Proto` from the reverse proxy in front.'),
    HOLDFAST_INSECURE_DEMO: z
      .preprocess(emptyAsUnset, z.enum(['0', '1']).default('0'))
      .describe(
        '`1`: allow demo sign-in where others can reach it (a warning line at start and a banner on every page). Never for production.',
      ),
    HOST: z
      .preprocess(emptyAsUnset, z.string().min(1).default('127.0.0.1'))
      .describe('Address the dashboard listens on; loopback by default, `0.0.0.0` serves other machines too.'),
    PORT: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(65535).default(3000))
      .describe('Port of the dashboard.'),
    HOLDFAST_DATA_DIR: z
      .preprocess(emptyAsUnset, z.string().default('.data/postgres'))
      .describe('Data folder of the embedded PostgreSQL.'),
    HOLDFAST_DEMO_DATA: z
      .preprocess(emptyAsUnset, z.enum(['auto', 'on', 'off']).default('auto'))
      .describe(
        'Demo history on an empty attempt log: `auto` (embedded database only), `on`, `off`. Never written to a database you name unless `on`.',
      ),
    HOLDFAST_SPEND_BUDGETS_FILE: z
      .preprocess(emptyAsUnset, z.string().max(4_096).optional())
      .describe(
        'A JSON file of the fleet\'s spend budgets, kept in version control (`{"budgets": [...]}`, each as the console\'s form takes it: docs/agents/budgets-and-pools.md#budgets-in-a-file). Applied at each start, before serving: its budgets are created or changed, the ones it no longer names deleted, each audited; the console shows them read only. A file with a mistake stops the start, naming each one. `npm run budgets:check -- FILE` checks a file without applying it.',
      ),
    HOLDFAST_DEMO: z
      .preprocess(emptyAsUnset, z.enum(['auto', 'on', 'off']).default('auto'))
      .describe('The live demo fleet on pg-boss: `auto` (embedded database only), `on`, `off`.'),
    HOLDFAST_BULK_REDRIVE_STALLED_SECONDS: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(2).max(3_600).default(30))
      .describe(
        "A running bulk redrive whose heartbeat is quiet this long (its instance died or stopped) is carried on by any instance's sweep.",
      ),
    HOLDFAST_DRAIN_SECONDS: z
      .preprocess(emptyAsUnset, z.coerce.number().min(0).max(60).default(5))
      .describe(
        'On SIGTERM or SIGINT: how long requests already in flight may take to finish before their connections close (new connections are refused at once and `/api/health` answers 503, so a load balancer stops sending).',
      ),
    HOLDFAST_DEMO_FLEET_LEASE_SECONDS: z
      .preprocess(emptyAsUnset, z.coerce.number().min(1).max(600).default(30))
      .describe(
        "How long the demo fleet's lease lasts unrenewed: with several instances on one database the fleet runs on one, and another takes it over within about this long after that one dies.",
      ),
    HOLDFAST_SWEEP_INTERVAL_SECONDS: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(86_400).default(60))
      .describe(
        'How often `npm start` runs the due sweeps; `0` turns them off (run `npm run sweep` instead, e.g. from cron).',
      ),
    HOLDFAST_FROZEN_AFTER_DAYS: z
      .preprocess(emptyAsUnset, z.coerce.number().min(0.01).max(365).default(3))
      .describe('Days without a state change after which an active task is frozen for its owner.'),
    HOLDFAST_ATTEMPT_RETENTION_DAYS: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(2).max(3_650).default(30))
      .describe(
        'Days of raw attempts kept. The attempt log is partitioned by UTC day; a day is dropped whole once it ends more than this many days ago (its rollups stay).',
      ),
    HOLDFAST_TRACES_OPERATIONS: z
      .preprocess(
        emptyAsUnset,
        z
          .string()
          .default('chat,text_completion,generate_content,embeddings,execute_tool')
          .transform((value) => value.split(',').map((operation) => operation.trim()))
          .pipe(
            z
              .array(z.string().regex(/^[a-z0-9_.]{1,64}$/, 'each operation is a gen_ai.operation.name value'))
              .min(1)
              .max(32),
          ),
      )
      .describe(
        "The `gen_ai.operation.name` values whose spans become attempts at `POST /v1/traces`, comma-separated (a span that states `holdfast.step` always does). An agent's run (`invoke_agent`) is never a step, listed or not: it is kept as a run.",
      ),
    HOLDFAST_ROLLUP_RETENTION_DAYS: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(2).max(36_500).default(400))
      .describe(
        'Days of hourly and daily rollups kept; at least `HOLDFAST_ATTEMPT_RETENTION_DAYS`: trends outlive the raw rows.',
      ),
    HOLDFAST_REDRIVE_MAX: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(1_000).default(3))
      .describe("Redrive brake: redrives one task may have in all; more need an admin's override."),
    HOLDFAST_REDRIVE_COOLDOWN_MINUTES: z
      .preprocess(emptyAsUnset, z.coerce.number().min(0).max(10_080).default(10))
      .describe('Redrive brake: least time between two redrives of one task.'),
    HOLDFAST_REDRIVE_MAX_AGE_DAYS: z
      .preprocess(emptyAsUnset, z.coerce.number().min(0.01).max(3_650).default(7))
      .describe('Redrive brake: a task first seen longer ago is not redriven without an override.'),
    HOLDFAST_AGENT_RATE_PER_SECOND: z
      .preprocess(emptyAsUnset, z.coerce.number().min(0.01).max(100_000).default(200))
      .describe(
        "The agent API's rate limit for a token that sets none of its own (Settings, API tokens): requests a second (its bucket's refill). Generous: it stops a runaway agent, not a busy fleet.",
      ),
    HOLDFAST_AGENT_RATE_BURST: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(1_000_000).default(2_000))
      .describe("... and how many at once (the bucket's size). Past it: 429 `RATE_LIMITED` with `Retry-After`."),
    HOLDFAST_BENCH_EMPTY_ROUTE: z
      .preprocess(emptyAsUnset, z.enum(['on', 'off']).default('off'))
      .describe(
        '`on`: `POST /api/bench/empty` answers `{}` and does nothing else, so `npm run bench:peers` can show what the HTTP server and Next.js cost a request on their own. Benchmarks only; off, the route answers 404.',
      ),
    HOLDFAST_METRICS_MAX_STEPS_PER_AGENT: z
      .preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(10_000).default(100))
      .describe(
        '`GET /metrics`: each agent\'s busiest steps keep their own series, up to this many; the rest share `step="other"`.',
      ),
    HOLDFAST_UNCERTAIN_ESCALATE_MINUTES: z
      .preprocess(emptyAsUnset, z.coerce.number().min(1).max(10_080).default(15))
      .describe("An uncertain key not redelivered for this long is held for its task's owner."),
    HOLDFAST_STALE_LOCK_ESCALATE_MINUTES: z
      .preprocess(emptyAsUnset, z.coerce.number().min(1).max(10_080).default(30))
      .describe("A stale lock the sweeper has refused to release for this long is held for its run's owner."),
    HOLDFAST_DEFAULT_OWNER: z
      .preprocess(
        emptyAsUnset,
        z
          .string()
          .regex(/^(person|team):\S.*$/, 'must be person:<email> or team:<name>')
          .default('team:platform'),
      )
      .describe(
        'Owner (`person:<email>` or `team:<name>`) of escalated holds on items that name no task owner (keys and locks claimed outside a task), and of work an agent names an unknown owner for.',
      ),
    AUTH_MODE: z
      .preprocess(emptyAsUnset, z.enum(['demo', 'proxy']).optional())
      .describe(
        "`demo`: a sign-in page listing the demo people (the default on the embedded database). `proxy`: identity from a trusted SSO proxy's headers. Required with `DATABASE_URL`: start-up refuses without it.",
      ),
    SESSION_SECRET: z
      .preprocess(emptyAsUnset, secret(32).optional())
      .describe(
        'Signs session cookies (at least 32 characters); `npm start` creates and keeps one in `.data/session-secret` when unset. Set it to share sessions across instances.',
      ),
    AUTH_PROXY_SECRET: z
      .preprocess(emptyAsUnset, secret(16).optional())
      .describe(
        'Proxy mode (required with it, at least 16 characters): the shared secret the proxy sends; without a match, proxy headers are ignored and the request refused.',
      ),
    AUTH_PROXY_SECRET_HEADER: z
      .preprocess(emptyAsUnset, z.string().toLowerCase().default('x-holdfast-proxy-secret'))
      .describe('Proxy mode: the header carrying that secret.'),
    AUTH_PROXY_EMAIL_HEADER: z
      .preprocess(emptyAsUnset, z.string().toLowerCase().default('x-forwarded-email'))
      .describe('Proxy mode: the header naming the person.'),
    AUTH_PROXY_GROUPS_HEADER: z
      .preprocess(emptyAsUnset, z.string().toLowerCase().default('x-forwarded-groups'))
      .describe("Proxy mode: the person's groups, comma- or space-separated."),
    AUTH_PROXY_ROLE_MAP: z
      .preprocess(emptyAsUnset, z.string().default(''))
      .describe(
        'Proxy mode: `group=role` pairs, comma-separated, e.g. `sre=admin,oncall=responder`; the highest wins, at every sign-in. No mapped group: the role set on People stands.',
      ),
    AUTH_PROXY_SIGN_OUT_URL: z
      .preprocess(emptyAsUnset, z.string().url().optional())
      .describe("Proxy mode: where Sign out sends people (the proxy's own sign-out)."),
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
