import { sql } from 'drizzle-orm';
import { recordAttemptInput, type CoreContext, type RecordAttemptInput } from '@holdfast/engine/core';
import { parseInput } from '@holdfast/protocol/validation';
import { attemptIdentities, attempts, type AttemptSource } from '@holdfast/engine/db/schema';

/**
 * Two weeks of believable history from the demo fleet's agents, so a
 * newcomer sees trends at once; the live fleet (lib/fleet) adds to it from
 * then on. Deterministic for a given `now`, validated by recordAttempt's own
 * schema, and written set-based (a thousand rows per INSERT).
 */

type ErrorClass = NonNullable<RecordAttemptInput['errorClass']>;

interface DemoStep {
  step: string;
  /** Chance that an attempt fails. */
  failureRate: number;
  /** What a failure of this step usually is, with error texts a person would see. */
  failures: { errorClass: ErrorClass; text: string }[];
  /** Typical cost of one attempt in micro-dollars (0 for steps that call no paid service). */
  costMicros: number;
  latencyMs: number;
  /** A recent rise in failures: the retry-share anomaly a responder meets on a fresh demo (it fires at once). */
  surge?: { lastHours: number; failureRate: number };
}

interface DemoAgent {
  agent: string;
  /** How the live agent reaches Holdfast (lib/fleet): research over the HTTP API, the others in-process. */
  source: AttemptSource;
  tasksPerHour: number;
  steps: DemoStep[];
}

const fleet: DemoAgent[] = [
  {
    agent: 'outreach',
    source: 'library',
    tasksPerHour: 2,
    steps: [
      {
        step: 'draft_email',
        failureRate: 0.12,
        // The model started answering with broken JSON six hours ago: retries now take far more of its spend.
        surge: { lastHours: 6, failureRate: 0.75 },
        costMicros: 4_200,
        latencyMs: 2_400,
        failures: [
          { errorClass: 'invalid_output', text: 'model output is not valid JSON: unexpected token at 212' },
          { errorClass: 'rate_limited', text: '429 Too Many Requests (retry-after: 2s)' },
        ],
      },
      {
        step: 'send_email',
        failureRate: 0.05,
        costMicros: 100,
        latencyMs: 350,
        failures: [{ errorClass: 'transient', text: 'SMTP 451 4.3.0 temporary server error' }],
      },
    ],
  },
  {
    agent: 'payments',
    source: 'library',
    tasksPerHour: 1,
    steps: [
      {
        step: 'check_invoice',
        failureRate: 0.02,
        costMicros: 1_100,
        latencyMs: 900,
        failures: [{ errorClass: 'timeout', text: 'ledger lookup timed out after 5000 ms' }],
      },
      {
        step: 'charge_card',
        failureRate: 0.08,
        costMicros: 300,
        latencyMs: 1_200,
        failures: [
          { errorClass: 'timeout', text: 'payment provider did not answer within 10 s' },
          { errorClass: 'transient', text: '503 Service Unavailable from payment provider' },
        ],
      },
    ],
  },
  {
    agent: 'publishing',
    source: 'library',
    tasksPerHour: 1,
    steps: [
      {
        step: 'render_page',
        failureRate: 0.03,
        costMicros: 2_500,
        latencyMs: 3_100,
        failures: [{ errorClass: 'transient', text: 'renderer worker restarted' }],
      },
      {
        step: 'publish',
        failureRate: 0.15,
        costMicros: 200,
        latencyMs: 1_800,
        failures: [
          { errorClass: 'transient', text: 'CMS answered 502 Bad Gateway' },
          { errorClass: 'permanent', text: '400 Bad Request: slug already taken' },
        ],
      },
    ],
  },
  {
    agent: 'research',
    source: 'http',
    tasksPerHour: 2,
    steps: [
      {
        step: 'plan',
        failureRate: 0.04,
        costMicros: 9_000,
        latencyMs: 4_000,
        failures: [{ errorClass: 'rate_limited', text: '429 rate limit reached for model tokens per minute' }],
      },
      {
        step: 'call_model',
        failureRate: 0.2,
        costMicros: 38_000,
        latencyMs: 11_000,
        failures: [
          { errorClass: 'timeout', text: 'model call exceeded 30 s deadline' },
          { errorClass: 'invalid_output', text: 'model output failed schema: missing field "sources"' },
          { errorClass: 'rate_limited', text: '429 Too Many Requests (retry-after: 20s)' },
        ],
      },
      {
        step: 'summarize',
        failureRate: 0.06,
        costMicros: 12_000,
        latencyMs: 5_500,
        failures: [{ errorClass: 'invalid_output', text: 'summary longer than the 400-word limit' }],
      },
    ],
  },
];

/**
 * Failures a provider refuses before doing any work (a 429, a 503, a 400) bill nothing; a timeout after a long
 * generation and an output that failed its schema consumed their tokens, and bill them.
 */
const REFUSED_FOR_FREE = new Set<ErrorClass>(['rate_limited', 'transient', 'permanent']);

/** Two weeks, so the trend charts and the anomaly baseline (7 days) have shape from the first start. */
const DAYS = 14;
const MAX_ATTEMPTS_PER_STEP = 3;

/** A small seeded random generator (mulberry32), so the demo looks the same on every machine. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every attempt the demo fleet reports for the DAYS before `now`. */
export function generateDemoAttempts(now: Date): RecordAttemptInput[] {
  const random = seededRandom(20261130);
  const reports: RecordAttemptInput[] = [];
  const hours = DAYS * 24;
  const hourMs = 3_600_000;
  for (let hour = hours; hour >= 1; hour--) {
    const hourStart = now.getTime() - hour * hourMs;
    for (const { agent, tasksPerHour, steps } of fleet) {
      for (let task = 0; task < tasksPerHour; task++) {
        const taskId = `${agent}-${Math.floor(hourStart / hourMs)}-${task}`;
        let clock = hourStart + Math.floor(random() * (hourMs / 2));
        for (const step of steps) {
          let stepSucceeded = false;
          for (let attemptNumber = 1; attemptNumber <= MAX_ATTEMPTS_PER_STEP; attemptNumber++) {
            const latency = Math.round(step.latencyMs * (0.5 + random()));
            const surging = step.surge !== undefined && hour <= step.surge.lastHours;
            const failed = random() < (surging ? step.surge!.failureRate : step.failureRate);
            const failure = step.failures[Math.floor(random() * step.failures.length)];
            const billed = Math.round(step.costMicros * (0.7 + random() * 0.6));
            const cost = failed && failure && REFUSED_FOR_FREE.has(failure.errorClass) ? 0 : billed;
            reports.push({
              taskId,
              agent,
              step: step.step,
              attemptNumber,
              startedAt: new Date(clock),
              finishedAt: new Date(clock + latency),
              outcome: failed ? 'failed' : 'succeeded',
              ...(failed && failure ? { errorClass: failure.errorClass, errorText: failure.text } : {}),
              costMicros: cost,
            });
            clock += latency + 500;
            stepSucceeded = !failed;
            // Permanent failures and successes end the step; others retry, within a small limit.
            if (!failed || failure?.errorClass === 'permanent') break;
          }
          if (!stepSucceeded) break; // a step that never succeeded ends its task
        }
      }
    }
  }
  return reports;
}

/**
 * Seeds the demo attempts when the attempt log is empty; returns how many were
 * recorded (0 when there was data already).
 */
export async function seedDemoAttemptsIfEmpty(ctx: CoreContext, now = new Date()): Promise<number> {
  const [existing] = await ctx.db.select({ any: sql<number>`1` }).from(attempts).limit(1);
  if (existing) return 0;
  const reports = generateDemoAttempts(now).map((report) => parseInput(recordAttemptInput, report));
  const sourceOf = new Map(fleet.map((demo) => [demo.agent, demo.source]));
  await ctx.db.transaction(async (tx) => {
    for (let index = 0; index < reports.length; index += 1_000) {
      const batch = reports.slice(index, index + 1_000);
      // Each attempt with its identity, as recordAttempt writes them.
      await tx
        .insert(attemptIdentities)
        .values(
          batch.map(({ taskId, step, attemptNumber, startedAt }) => ({ taskId, step, attemptNumber, startedAt })),
        );
      await tx.insert(attempts).values(
        batch.map((report) => ({
          ...report,
          latencyMs: report.finishedAt.getTime() - report.startedAt.getTime(),
          errorClass: report.errorClass ?? null,
          errorText: report.errorText ?? null,
          // Every demo attempt states its cost, as the fleet's agents report theirs.
          costSource: 'reported' as const,
          source: sourceOf.get(report.agent) ?? null,
        })),
      );
    }
  });
  return reports.length;
}
