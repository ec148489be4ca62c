import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  beginStep,
  createApiToken,
  finishStep,
  recordAttempt,
  type BeginStepInput,
  type CoreContext,
} from '../../../packages/engine/src/core';
import { ensureAttemptPartitions } from '../../../packages/engine/src/db/attempt-partitions';
import type { AlertKind } from '@holdfast/protocol/enums';
import {
  alertInstances,
  deadLetters,
  holds,
  idempotencyKeys,
  leases,
  redrives,
  retryPools,
  slotLocks,
} from '../../../packages/engine/src/db/schema';
import { metricCatalog } from '../../../packages/engine/src/metrics/catalog';
import { resetMetricsProcessState, scrapeMetrics } from '../../../packages/engine/src/metrics/scrape';
import { maintainAttemptLog } from '../../../packages/engine/src/rollups/retention';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { useTestDatabase } from '../../support/test-database';
import { aPerson, anAgent } from '../../support/actors';
import { closeAppDatabase } from '../../support/app-database';
import { attemptOf } from '../../support/step-input';

const database = useTestDatabase({ maxConnections: 12 });

/** The tests' present: every report, gauge and pass is judged by this clock, never by waiting. */
const NOW = new Date('2026-10-20T12:30:00Z');
const clock = () => NOW;
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);
const admin = aPerson('admin', 'admin@example.com');
const agentActor = anAgent('metrics-test');
const ctx = (): CoreContext => ({ db: database.db, actor: agentActor, clock });

/** A rollup pass as the sweeper runs it at `now` (the raw log kept 30 days). */
const rollUp = (now: Date) =>
  rollUpAttempts(database.db, { now, retentionFloor: new Date(now.getTime() - 30 * 86_400_000) });

/** A render afresh: no cached text, no high-water marks (the database alone decides), a new registry. */
async function freshScrape(now = NOW): Promise<Map<string, number>> {
  resetMetricsProcessState();
  return parseSeries(await scrapeMetrics(database.db, { clock: () => now, maxAgeMs: 0 }));
}

/** Every series line of the text format, keyed by name and its labels in name order. */
function parseSeries(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a series line: ${line}`);
    const labels = [...(match[2] ?? '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, name, value]) => ({ name: name!, value: value! }))
      .sort((a, b) => a.name.localeCompare(b.name));
    series.set(
      seriesKey(match[1]!, Object.fromEntries(labels.map((label) => [label.name, label.value]))),
      Number(match[3]),
    );
  }
  return series;
}

function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const sorted = Object.keys(labels)
    .sort()
    .map((label) => `${label}="${labels[label]}"`);
  return `${name}{${sorted.join(',')}}`;
}

function sampleValue(
  series: Map<string, number>,
  name: keyof typeof metricCatalog,
  labels: Record<string, string> = {},
) {
  return series.get(seriesKey(name, labels));
}

const counterNames = Object.entries(metricCatalog)
  .filter(([, metric]) => metric.type === 'counter')
  .map(([name]) => name);
const countersOf = (series: Map<string, number>) =>
  new Map([...series].filter(([key]) => counterNames.some((name) => key.startsWith(`${name}{`))));

async function report(agent: string, step: string, overrides: Partial<Parameters<typeof recordAttempt>[1]> = {}) {
  const startedAt = overrides.startedAt instanceof Date ? overrides.startedAt : minutesAgo(10);
  await recordAttempt(ctx(), {
    taskId: `metrics-${randomUUID()}`,
    agent,
    step,
    attemptNumber: 1,
    startedAt,
    finishedAt: new Date(startedAt.getTime() + 1_000),
    outcome: 'succeeded',
    costMicros: 100,
    ...overrides,
  });
}

beforeAll(async () => {
  // Daily partitions for the days the tests report into, so retention has whole days to drop.
  await ensureAttemptPartitions(database.db, { from: new Date('2026-10-01T00:00:00Z'), to: NOW });
});

beforeEach(() => resetMetricsProcessState());

describe('GET /metrics', () => {
  const tokens = { ingest: '', metrics: '', read: '' };
  let GET: (request: NextRequest) => Promise<Response>;

  beforeAll(async () => {
    process.env.DATABASE_URL = database.url;
    ({ GET } = await import('../../../app/metrics/route'));
    for (const scope of ['ingest', 'metrics', 'read'] as const) {
      tokens[scope] = (
        await createApiToken({ db: database.db, actor: admin }, { name: `metrics-${scope}`, scopes: [scope] })
      ).token;
    }
  });
  afterAll(closeAppDatabase);

  const scrape = (token?: string) =>
    GET(
      new NextRequest('http://holdfast.test/metrics', {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }),
    );

  it('needs a token with the metrics or read scope: 401 without one, 403 for an ingest-only token, 200 in the text format', async () => {
    const anonymous = await scrape();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await scrape('hf_not-a-real-token')).status).toBe(401);

    const ingestOnly = await scrape(tokens.ingest);
    expect(ingestOnly.status).toBe(403);
    expect(((await ingestOnly.json()) as { detail: string }).detail).toContain('metrics scope');

    for (const token of [tokens.metrics, tokens.read]) {
      const answer = await scrape(token);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await answer.text();
      for (const [name, metric] of Object.entries(metricCatalog)) {
        expect(text).toContain(`# HELP ${name} ${metric.help}`);
        expect(text).toContain(`# TYPE ${name} ${metric.type}`);
      }
    }
  });

  it('exports every metric of the catalog and nothing else', async () => {
    const text = await (await scrape(tokens.metrics)).text();
    const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
    expect([...exported].sort()).toEqual(Object.keys(metricCatalog).sort());
  });
});

describe('the figures', () => {
  it('each metric has the value of known data: counters are the rolled totals plus the raw tail', async () => {
    const agent = 'known-agent';
    // The closed hour 10:00-11:00, rolled up below: two first tries, one a timeout, and its retry, which succeeded
    // (its retry spend: the timeout's cost, spent beyond one try).
    const retried = `metrics-${randomUUID()}`;
    await report(agent, 'fetch', { startedAt: minutesAgo(140), costMicros: 100 });
    await report(agent, 'fetch', {
      taskId: retried,
      startedAt: minutesAgo(135),
      outcome: 'failed',
      errorClass: 'timeout',
      errorText: 'no answer in 30 s',
      costMicros: 50,
    });
    await report(agent, 'fetch', { taskId: retried, startedAt: minutesAgo(130), attemptNumber: 2, costMicros: 250 });
    await rollUp(NOW);
    // The open hour, raw only: a retry that failed with a transient error.
    await report(agent, 'fetch', {
      startedAt: minutesAgo(5),
      attemptNumber: 3,
      outcome: 'failed',
      errorClass: 'transient',
      errorText: 'reset by peer',
      costMicros: 40,
    });

    await database.db.insert(holds).values([
      holdOn('growth-1', 'needs_approval', 'team:growth'),
      holdOn('growth-2', 'needs_approval', 'team:growth'),
      holdOn('alice-1', 'manual', 'person:alice@example.com'),
      {
        ...holdOn('cleared-1', 'manual', 'team:growth'),
        status: 'cleared' as const,
        resolution: 'resume' as const,
        clearedAt: NOW,
      },
    ]);

    const [pending] = await database.db
      .insert(deadLetters)
      .values([deadLetter('mail', 600), deadLetter('mail', 120), deadLetter('billing', 30)])
      .returning({ id: deadLetters.id });
    await database.db.insert(deadLetters).values({ ...deadLetter('mail', 900), status: 'redriven' });
    await database.db
      .insert(redrives)
      .values([redrive(pending!.id, 'delivered', 3_000, minutesAgo(49)), redrive(pending!.id, 'waiting', 300, null)]);
    await database.db.insert(slotLocks).values([
      { slot: 'site-a/2026-10-20/am', holderRunKey: 'run-1', fencingToken: 1, expiresAt: minutesAgo(1) },
      { slot: 'site-b/2026-10-20/am', holderRunKey: 'run-2', fencingToken: 1, expiresAt: minutesAgo(-5) },
    ]);
    await database.db
      .insert(idempotencyKeys)
      .values([uncertainKey('uncertain-1', false), uncertainKey('deduplicated-downstream', true)]);
    await database.db
      .insert(leases)
      .values([
        lease('roll_up_attempts', minutesAgo(3), 1_500),
        lease('roll_up_attempts', minutesAgo(2), 2_500),
        lease('roll_up_attempts', minutesAgo(1), null),
        lease('freeze_idle_tasks', minutesAgo(30), 40_000),
      ]);
    await database.db.insert(retryPools).values({
      agent: 'pooled-agent',
      budgetPercent: 10,
      minRetriesPerSecond: 0.5,
      windowSeconds: 60,
      updatedBy: 'person:admin@example.com',
    });
    await database.db.insert(alertInstances).values([alertOf('stale_lock', 'a'), alertOf('stale_lock', 'b')]);

    const series = await freshScrape();
    const step = { agent, step: 'fetch' };
    expect(sampleValue(series, 'holdfast_attempts_total', step)).toBe(4);
    expect(sampleValue(series, 'holdfast_retries_total', step)).toBe(2);
    expect(sampleValue(series, 'holdfast_spend_microdollars_total', step)).toBe(440);
    // The timeout before the succeeded retry (50) and the failed retry in the open hour (40).
    expect(sampleValue(series, 'holdfast_retry_spend_microdollars_total', step)).toBe(90);
    expect(sampleValue(series, 'holdfast_attempt_failures_total', { ...step, error_class: 'timeout' })).toBe(1);
    expect(sampleValue(series, 'holdfast_attempt_failures_total', { ...step, error_class: 'transient' })).toBe(1);

    expect(sampleValue(series, 'holdfast_holds_open', { reason: 'needs_approval', owner_team: 'growth' })).toBe(2);
    expect(sampleValue(series, 'holdfast_holds_open', { reason: 'manual', owner_team: 'person' })).toBe(1);
    expect(sampleValue(series, 'holdfast_dead_letters_pending', { queue: 'mail' })).toBe(2);
    expect(sampleValue(series, 'holdfast_dead_letters_pending', { queue: 'billing' })).toBe(1);
    expect(sampleValue(series, 'holdfast_dead_letters_oldest_age_seconds', { queue: 'mail' })).toBe(600);
    expect(sampleValue(series, 'holdfast_dead_letters_oldest_age_seconds', { queue: 'billing' })).toBe(30);
    expect(sampleValue(series, 'holdfast_slot_locks_stale')).toBe(1);
    expect(sampleValue(series, 'holdfast_keys_uncertain')).toBe(1);
    expect(sampleValue(series, 'holdfast_redrives_oldest_undelivered_age_seconds')).toBe(300);
    expect(sampleValue(series, 'holdfast_sweep_last_success_timestamp_seconds', { sweep: 'roll_up_attempts' })).toBe(
      (minutesAgo(2).getTime() + 2_500) / 1_000,
    );
    expect(sampleValue(series, 'holdfast_sweep_last_duration_seconds', { sweep: 'roll_up_attempts' })).toBe(2.5);
    expect(sampleValue(series, 'holdfast_sweep_last_duration_seconds', { sweep: 'freeze_idle_tasks' })).toBe(40);
    // 10 % of no first attempts, plus 0.5 a second over 60 s.
    expect(sampleValue(series, 'holdfast_retry_pool_available', { pool: 'pooled-agent/*' })).toBe(30);
    expect(sampleValue(series, 'holdfast_retry_pool_capacity', { pool: 'pooled-agent/*' })).toBe(30);
    expect(sampleValue(series, 'holdfast_alerts_firing', { kind: 'stale_lock' })).toBe(2);
    expect(sampleValue(series, 'holdfast_alerts_firing', { kind: 'hold_opened' })).toBe(0);
  });

  it('counts begins refused for want of budget, per reason, in the total and the minute', async () => {
    const agent = 'budget-agent';
    const begin = (overrides: Partial<BeginStepInput>) =>
      beginStep(ctx(), {
        taskId: `budget-${randomUUID()}`,
        agent,
        owner: 'team:growth',
        step: 'draft',
        content: { n: 1 },
        estimatedCostMicros: 100,
        ...overrides,
      });
    const failed = (answer: Awaited<ReturnType<typeof beginStep>>) => {
      if (answer.decision !== 'run') throw new Error(`expected run, got ${JSON.stringify(answer)}`);
      return finishStep(ctx(), {
        ...attemptOf(answer),
        outcome: 'failed',
        errorClass: 'transient',
        errorText: 'reset by peer',
        costMicros: 10,
      });
    };

    // A task at its retry limit: one retry allowed, shared by its steps; step b's retry finds it used by step a.
    const taskId = `at-limit-${randomUUID()}`;
    await failed(await begin({ taskId, step: 'a', retryAllowance: 1 }));
    await failed(await begin({ taskId, step: 'b', retryAllowance: 1 }));
    expect((await begin({ taskId, step: 'a', retryAllowance: 1 })).decision).toBe('run');
    expect(await begin({ taskId, step: 'b', retryAllowance: 1 })).toMatchObject({
      decision: 'stop',
      code: 'DO_NOT_RETRY',
      reason: 'retry_ceiling',
    });
    // No room under the spend ceiling for the estimate.
    expect(await begin({ spendCeilingMicros: 50, estimatedCostMicros: 100 })).toMatchObject({
      reason: 'budget_exhausted',
    });
    // An empty fleet retry pool: no share of first attempts and no floor.
    await database.db.insert(retryPools).values({
      agent,
      step: 'pooled',
      budgetPercent: 0,
      minRetriesPerSecond: 0,
      windowSeconds: 60,
      updatedBy: 'person:admin@example.com',
    });
    await failed(await begin({ taskId: 'pool-task', step: 'pooled', retryAllowance: 3 }));
    expect(await begin({ taskId: 'pool-task', step: 'pooled', retryAllowance: 3 })).toMatchObject({
      decision: 'wait',
      code: 'RETRY_BUDGET_EXHAUSTED',
    });

    const series = await freshScrape();
    expect(sampleValue(series, 'holdfast_budget_refusals_total', { agent, step: 'b', reason: 'retries' })).toBe(1);
    expect(sampleValue(series, 'holdfast_budget_refusals_total', { agent, step: 'draft', reason: 'spend' })).toBe(1);
    expect(sampleValue(series, 'holdfast_budget_refusals_total', { agent, step: 'pooled', reason: 'pool' })).toBe(1);
    const minutes = await database.db.execute<{ minute: Date; step: string; reason: string; refusals: string }>(sql`
      select minute, step, reason, refusals::text from budget_refusal_minutes where agent = ${agent} order by step`);
    expect(
      minutes.map((row) => [new Date(row.minute).toISOString(), row.step, row.reason, Number(row.refusals)]),
    ).toEqual([
      ['2026-10-20T12:30:00.000Z', 'b', 'retries', 1],
      ['2026-10-20T12:30:00.000Z', 'draft', 'spend', 1],
      ['2026-10-20T12:30:00.000Z', 'pooled', 'pool', 1],
    ]);
  });

  it('serves one render for up to 10 s per process, then renders afresh', async () => {
    const agent = 'cached-agent';
    await report(agent, 'fetch');
    let now = NOW.getTime();
    const scrapeAt = async () => parseSeries(await scrapeMetrics(database.db, { clock: () => new Date(now) }));
    expect(sampleValue(await scrapeAt(), 'holdfast_attempts_total', { agent, step: 'fetch' })).toBe(1);
    await report(agent, 'fetch');
    now += 9_999;
    expect(sampleValue(await scrapeAt(), 'holdfast_attempts_total', { agent, step: 'fetch' })).toBe(1);
    now += 1;
    expect(sampleValue(await scrapeAt(), 'holdfast_attempts_total', { agent, step: 'fetch' })).toBe(2);
  });

  it('10,000 task ids add no series: labels are agent, step and error class, never a task', async () => {
    const agent = 'busy-agent';
    await report(agent, 'fetch');
    await report(agent, 'fetch', { outcome: 'failed', errorClass: 'rate_limited', errorText: '429' });
    const before = await freshScrape();

    // One statement: 10,000 distinct tasks of the same step, every fifth rate-limited.
    await database.db.execute(sql`
      insert into attempts (task_id, agent, step, attempt_number, started_at, finished_at, latency_ms, outcome,
        error_class, error_text, cost_micros)
      select 'many-' || g, ${agent}, 'fetch', 1 + (g % 2), ${minutesAgo(8).toISOString()}::timestamptz,
        ${minutesAgo(7).toISOString()}::timestamptz, 60000,
        case when g % 5 = 0 then 'failed' else 'succeeded' end,
        case when g % 5 = 0 then 'rate_limited'::error_class end,
        case when g % 5 = 0 then '429' end, 10
      from generate_series(1, 10000) as g`);
    const after = await freshScrape();
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    expect(sampleValue(after, 'holdfast_attempts_total', { agent, step: 'fetch' })).toBe(10_002);
    expect(
      sampleValue(after, 'holdfast_attempt_failures_total', { agent, step: 'fetch', error_class: 'rate_limited' }),
    ).toBe(2_001);
    expect([...after.keys()].some((key) => key.includes('many-'))).toBe(false);
  });
});

describe('counters never go backwards', () => {
  it('across a restart, and across a rollup pass that moves the raw tail into the totals', async () => {
    const agent = 'restart-agent';
    await report(agent, 'fetch', { startedAt: minutesAgo(20) });
    await report(agent, 'fetch', {
      startedAt: minutesAgo(15),
      attemptNumber: 2,
      outcome: 'failed',
      errorClass: 'timeout',
      errorText: 'slow',
    });
    const served = countersOf(parseSeries(await scrapeMetrics(database.db, { clock })));
    // A restart: no cached text, no marks kept in memory, a new registry; only the database remembers.
    const restarted = countersOf(await freshScrape());
    expect(restarted).toEqual(served);

    // The open hour closes and is rolled up: its rows leave the tail and join the totals, unchanged in sum.
    const later = new Date('2026-10-20T13:05:00Z');
    await rollUp(later);
    const rolled = countersOf(await freshScrape(later));
    expect(rolled).toEqual(served);
  });

  it('across a retention pass that drops the raw days and the rollups they were summed into', async () => {
    // Earlier days, rolled up with everything else: nothing stays in the raw tail.
    const early = new Date('2026-10-02T08:00:00Z');
    await recordAttempt(
      { db: database.db, clock: () => early },
      {
        taskId: 'early-task',
        agent: 'retention-agent',
        step: 'fetch',
        attemptNumber: 1,
        startedAt: early,
        finishedAt: new Date(early.getTime() + 500),
        outcome: 'failed',
        errorClass: 'permanent',
        errorText: 'bad request',
        costMicros: 70,
      },
    );
    const later = new Date('2026-10-20T13:05:00Z');
    await rollUp(later);
    const before = countersOf(await freshScrape(later));
    expect(sampleValue(before, 'holdfast_attempts_total', { agent: 'retention-agent', step: 'fetch' })).toBe(1);
    expect(sampleValue(before, 'holdfast_attempts_total', { agent: 'known-agent', step: 'fetch' })).toBe(4);

    // Six weeks on: every raw day of the tests is past a 30-day retention, every rollup past a 20-day one.
    const done = await maintainAttemptLog(database.db, {
      now: new Date('2026-12-01T00:00:00Z'),
      attemptRetentionDays: 30,
      rollupRetentionDays: 20,
    });
    expect(done.dropped).toEqual(expect.arrayContaining(['attempts_p20261002', 'attempts_p20261020']));
    expect(done.rollupRowsDeleted).toBeGreaterThan(0);
    const [left] = await database.db.execute<{ raw: number; rolled: number }>(sql`
      select (select count(*)::int from attempts where started_at < '2026-10-21') as raw,
        (select count(*)::int from attempt_rollups) as rolled`);
    expect(left).toEqual({ raw: 0, rolled: 0 });

    const after = countersOf(await freshScrape(later));
    expect(after).toEqual(before);
    // And the next pass, with nothing left to roll in those hours, changes nothing either.
    await rollUp(new Date('2026-12-01T00:05:00Z'));
    const afterPass = countersOf(await freshScrape(later));
    expect(afterPass).toEqual(before);
  });
});

function holdOn(itemId: string, reason: 'needs_approval' | 'manual', owner: string) {
  return {
    itemType: 'task' as const,
    itemId,
    reason,
    owner,
    detail: `Waiting on ${owner}`,
    openedBy: 'person:admin@example.com',
  };
}

function deadLetter(queue: string, ageSeconds: number) {
  return {
    taskId: `dead-${randomUUID()}`,
    agent: 'known-agent',
    step: 'fetch',
    queue,
    payload: {},
    reason: 'retry_ceiling' as const,
    attempts: 3,
    spendMicros: 0,
    createdAt: new Date(NOW.getTime() - ageSeconds * 1_000),
  };
}

function redrive(deadLetterId: number, name: string, ageSeconds: number, deliveredAt: Date | null) {
  return {
    outboxKey: `redrive-${name}-${randomUUID()}`,
    deadLetterId,
    queue: 'mail',
    taskId: `task-${deadLetterId}`,
    payload: {},
    requestedBy: 'person:oncall@example.com',
    requestedAt: new Date(NOW.getTime() - ageSeconds * 1_000),
    deliveredAt,
  };
}

function uncertainKey(key: string, downstreamIdempotent: boolean) {
  return {
    key,
    scope: 'test',
    requestHash: 'hash',
    status: 'in_progress' as const,
    fencingToken: 1,
    holderClaim: 'claim-1',
    downstreamIdempotent,
    lockedUntil: minutesAgo(2),
    expiresAt: minutesAgo(-600),
  };
}

function lease(job: string, acquiredAt: Date, tookMs: number | null) {
  return {
    job,
    bucket: acquiredAt.toISOString(),
    holder: randomUUID(),
    acquiredAt,
    expiresAt: new Date(acquiredAt.getTime() + 60_000),
    completedAt: tookMs === null ? null : new Date(acquiredAt.getTime() + tookMs),
  };
}

function alertOf(kind: AlertKind, identity: string) {
  return { kind, identity, title: `${kind} ${identity}`, detail: 'test', link: '/locks' };
}
