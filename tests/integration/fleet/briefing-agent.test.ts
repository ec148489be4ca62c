import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, SWEEPER } from '../../../packages/engine/src/core';
import {
  BRIEFING_AGENT,
  BRIEFING_MAX_TRIES,
  type BriefingRun,
  type BriefingTry,
} from '../../../lib/fleet/briefing-agent';
import { loopbackTracesUrl, startBriefingAgent } from '../../../lib/fleet/briefing-exporter';
import { getStepStats } from '../../../lib/queries/step-stats';
import { runDemoFleet } from '../../../scripts/lib/demo-fleet';
import { waitFor } from '../../../scripts/ci/faults/killable-postgres';
import { type HoldfastServer, startServerOn } from '../../support/holdfast-server';
import { useTestDatabase } from '../../support/test-database';

/**
 * The demo's briefing agent, which has no Holdfast client and only exports
 * OpenTelemetry spans, against a running Holdfast (the production server):
 * its briefings become exactly the attempts its own account says they were,
 * with its retries numbered, classed, priced and counted; and it runs with
 * the demo fleet and flushes its spans when the fleet stops.
 */
const database = useTestDatabase();
let server: HoldfastServer;
let token: string;
/** Faults, tokens and backoffs all come from the seed: the same briefings on every run. */
const SEED = 4;
/** gpt-4o-mini in the pinned price table: USD per million tokens, so micro-dollars per token. */
const PRICE = { input: 0.15, output: 0.6 };

beforeAll(async () => {
  // The token the fleet makes for the agent (scripts/lib/demo-fleet.ts): traces scope, limited to the agent.
  token = (
    await createApiToken(
      { db: database.db, actor: SWEEPER },
      { name: 'briefing test', scopes: ['traces'], allowedAgents: [BRIEFING_AGENT] },
    )
  ).token;
  server = await startServerOn(database);
}, 300_000);

afterAll(async () => {
  await server?.stop();
});

interface AttemptRow {
  task_id: string;
  step: string;
  attempt_number: number;
  outcome: string;
  error_class: string | null;
  error_text: string | null;
  cost_micros: string;
  cost_source: string;
}

async function briefingAttempts(taskPrefix: string) {
  return database.sql<AttemptRow[]>`
    select task_id, step, attempt_number, outcome, error_class, error_text, cost_micros, cost_source from attempts
    where agent = ${BRIEFING_AGENT} and task_id like ${`${taskPrefix}%`}
    order by task_id, step, attempt_number`;
}

/** The call an attempt belongs to: its task's conversation (the briefing), step and tool call id. */
/** The traces of the briefing agent's runs (agent_runs). */
async function runTraces() {
  const rows = await database.sql<
    { trace_id: string }[]
  >`select trace_id from agent_runs where agent = ${BRIEFING_AGENT}`;
  return rows.map((row) => row.trace_id);
}

/** The agent's runs since a moment, by outcome. */
async function runOutcomes(since: Date) {
  const rows = await database.sql<{ outcome: string; runs: number }[]>`
    select outcome, count(*)::int as runs from agent_runs
    where agent = ${BRIEFING_AGENT} and started_at >= ${since.toISOString()}::timestamptz group by outcome`;
  return Object.fromEntries(rows.map((row) => [row.outcome, row.runs]));
}

const callOf = (row: { task_id: string; step: string }) =>
  `${row.task_id.split('/')[0]} ${row.step} ${row.task_id.match(/\/(call_\d+)$/)?.[1] ?? ''}`;

/** What Holdfast should make of one try: its class by the HTTP status, its cost as providers bill it. */
function expectedAttempt(step: string, attemptNumber: number, answer: BriefingTry) {
  const model = step !== 'search_web';
  const refused = answer.status === 429 || answer.status === 400;
  return {
    step,
    attempt_number: attemptNumber,
    outcome: answer.status === 200 ? 'succeeded' : 'failed',
    error_class: { 200: null, 400: 'permanent', 429: 'rate_limited', 503: 'transient' }[answer.status],
    cost_micros: String(
      model && !refused ? Math.round(answer.inputTokens * PRICE.input + answer.outputTokens * PRICE.output) : 0,
    ),
    cost_source: !model ? 'none' : refused ? 'rule' : 'priced',
  };
}

describe('the briefing agent (OpenTelemetry only)', () => {
  it('refuses to export anywhere but 127.0.0.1', () => {
    expect(loopbackTracesUrl('http://localhost:3000').href).toBe('http://127.0.0.1:3000/v1/traces');
    expect(() => loopbackTracesUrl('http://holdfast.example.com')).toThrow(/127\.0\.0\.1 only/);
    expect(() => loopbackTracesUrl('https://127.0.0.1:3000')).toThrow(/127\.0\.0\.1 only/);
  });

  it('shows its briefings as attempts: every try numbered in order, 429s and 503s retried, model calls priced', async () => {
    // Faults depend on the task ids too: these are fixed (the file has a database of its own).
    const prefix = 'seeded-';
    const agent = startBriefingAgent({
      holdfastUrl: server.baseUrl,
      token,
      seed: SEED,
      everyMs: 0,
      timing: { callMs: 10, backoffMs: 10 },
      exportDelayMs: 600_000, // nothing leaves before the stop: the stop's flush exports it all
    });
    const runs: BriefingRun[] = [];
    const startedAt = new Date();
    try {
      for (let index = 0; index < 12; index += 1) runs.push(await agent.runTask(`${prefix}${index}`));
      expect(await briefingAttempts(prefix)).toEqual([]);
    } finally {
      await agent.stop(); // every span has been exported, and answered, when this resolves
    }
    const tries = runs.flatMap((run) => run.calls.flatMap((call) => call.tries.map((answer) => ({ call, answer }))));
    // The seed's twelve briefings, exactly (lib/fleet/faults.ts and model.ts decide them): 70 tries of calls, among
    // them calls retried after a 429 and after a 503 that then went through, and two briefings failed for good (400).
    const byStatus = (status: number) => tries.filter(({ answer }) => answer.status === status).length;
    expect({
      tries: tries.length,
      200: byStatus(200),
      400: byStatus(400),
      429: byStatus(429),
      503: byStatus(503),
    }).toEqual({ tries: 70, 200: 57, 400: 2, 429: 3, 503: 8 });
    const retriedAfter = (status: number) =>
      runs.some((run) =>
        run.calls.some(
          (call) =>
            call.tries.slice(0, -1).some((answer) => answer.status === status) && call.tries.at(-1)!.status === 200,
        ),
      );
    expect(retriedAfter(429)).toBe(true);
    expect(retriedAfter(503)).toBe(true);
    expect(runs.filter((run) => run.outcome === 'failed')).toHaveLength(2);
    expect(runs.filter((run) => run.outcome === 'completed')).toHaveLength(10);

    const rows = await briefingAttempts(prefix);
    // Exactly the agent's own account, try by try.
    const expected = runs.flatMap((run) =>
      run.calls.flatMap((call) =>
        call.tries.map((answer, index) => ({
          call: `${run.taskId} ${call.step} ${call.callId ?? ''}`,
          ...expectedAttempt(call.step, index + 1, answer),
        })),
      ),
    );
    const sortKey = (row: { call: string; attempt_number: number }) => `${row.call}#${row.attempt_number}`;
    const actual = rows.map(({ task_id, error_text: _text, ...row }) => ({
      call: callOf({ task_id, step: row.step }),
      ...row,
    }));
    expect(actual.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual(
      expected.sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
    );
    expect(tries.length).toBe(rows.length);
    // Each briefing is a run of the agent, never a step: ten went through, two failed with their call.
    expect(await runOutcomes(startedAt)).toEqual({ succeeded: 10, failed: 2 });
    // Tries of one call are one execution, numbered 1..n with no gap, and never more than the agent allows.
    const numbers = new Map<string, number[]>();
    for (const row of rows)
      numbers.set(row.task_id + row.step, [...(numbers.get(row.task_id + row.step) ?? []), row.attempt_number]);
    for (const list of numbers.values()) {
      expect(list).toEqual(list.map((_, index) => index + 1));
      expect(list.length).toBeLessThanOrEqual(BRIEFING_MAX_TRIES);
    }
    expect(rows.filter((row) => row.step !== 'search_web').map((row) => row.cost_source)).toSatisfy(
      (sources: string[]) => sources.every((source) => source === 'priced' || source === 'rule'),
    );

    // The figures the Steps page shows count those retries and their spend.
    const stats = await getStepStats(database.db, {
      from: new Date(startedAt.getTime() - 60_000),
      to: new Date(Date.now() + 60_000),
      agent: BRIEFING_AGENT,
    });
    for (const step of ['plan', 'search_web', 'summarize']) {
      const ofStep = expected.filter((row) => row.step === step);
      const retries = ofStep.filter((row) => row.attempt_number > 1);
      const micros = (list: typeof ofStep) => list.reduce((sum, row) => sum + Number(row.cost_micros), 0);
      // Retry spend: what each call spent beyond one try (the succeeded try's cost, else the first's).
      const byCall = new Map<string, typeof ofStep>();
      for (const row of ofStep) byCall.set(row.call, [...(byCall.get(row.call) ?? []), row]);
      const beyondOneTry = [...byCall.values()].reduce((sum, calls) => {
        const oneTry =
          calls.find((row) => row.outcome === 'succeeded') ?? calls.find((row) => row.attempt_number === 1)!;
        return sum + micros(calls) - Number(oneTry.cost_micros);
      }, 0);
      expect(stats.find((row) => row.step === step)).toMatchObject({
        attempts: ofStep.length,
        retries: retries.length,
        failures: ofStep.filter((row) => row.outcome === 'failed').length,
        totalSpendMicros: micros(ofStep),
        retrySpendMicros: beyondOneTry,
      });
    }
    expect(stats.find((row) => row.step === 'plan')!.retries).toBeGreaterThan(0);
  });

  it('ends the briefing in flight when stopped, and exports it before the stop resolves', async () => {
    const agent = startBriefingAgent({
      holdfastUrl: server.baseUrl,
      token,
      seed: SEED,
      everyMs: 0,
      timing: { callMs: 600_000, backoffMs: 10 }, // the first call would take minutes
      exportDelayMs: 600_000,
    });
    const run = agent.runTask('stopped-0'); // in its plan call from here on
    await agent.stop();
    expect(await run).toMatchObject({ outcome: 'stopped', calls: [{ step: 'plan', tries: [] }] });
    const rows = (await briefingAttempts('stopped-0/')).sort((a, b) => a.step.localeCompare(b.step));
    // The briefing is a failed run of the agent, cancelled; its call the one failed attempt.
    const cancelled = await database.sql<{ outcome: string }[]>`
      select outcome from agent_runs where agent = ${BRIEFING_AGENT} and error_text = 'cancelled: the agent is stopping'`;
    expect(cancelled.map((row) => row.outcome)).toEqual(['failed']);
    expect(
      rows.map(({ step, attempt_number, outcome, error_text, cost_source }) => ({
        step,
        attempt_number,
        outcome,
        error_text,
        cost_source,
      })),
    ).toEqual([
      {
        step: 'plan',
        attempt_number: 1,
        outcome: 'failed',
        error_text: 'cancelled: the agent is stopping',
        cost_source: 'none',
      },
    ]);
  });

  it('runs with the demo fleet on a traces token limited to it, revoked at the stop; every briefing that arrived is whole', async () => {
    const lines: string[] = [];
    const fleet = await runDemoFleet({
      databaseUrl: database.url,
      apiBaseUrl: server.baseUrl,
      log: (line) => lines.push(line),
    });
    let stopped = false;
    try {
      await waitFor(() => lines.some((line) => line.startsWith('Demo fleet running')), 60_000, 'the fleet to run');
      expect(lines.find((line) => line.startsWith('Demo fleet running'))).toContain(
        'briefing through OpenTelemetry only',
      );
      const [madeToken] = await database.sql<{ scopes: string[]; allowed_agents: string[]; revoked_at: Date | null }[]>`
        select scopes, allowed_agents, revoked_at from api_tokens where name = 'demo fleet: briefing agent (OpenTelemetry)'`;
      expect(madeToken).toEqual({ scopes: ['traces'], allowed_agents: [BRIEFING_AGENT], revoked_at: null });
      // A briefing has ended and been exported: its run's span is a run of the agent.
      await waitFor(
        async () => (await runTraces()).length > 0 && (await briefingAttempts('demo-briefing-')).length > 0,
        60_000,
        'a briefing of the fleet to arrive',
      );
      await fleet.stop();
      stopped = true;
    } finally {
      if (!stopped) await fleet.stop();
    }
    const [revoked] = await database.sql<{ id: string; revoked_at: Date | null }[]>`
      select id, revoked_at from api_tokens where name = 'demo fleet: briefing agent (OpenTelemetry)'`;
    expect(revoked!.revoked_at).not.toBeNull();
    // The audit log says the demo fleet made and revoked it, not the sweeper.
    const audited = await database.sql<{ action: string; actor_type: string; actor_id: string }[]>`
      select action, actor_type, actor_id from audit_log
      where target_type = 'api_token' and target_id = ${String(revoked!.id)} order by id`;
    expect(audited).toEqual([
      { action: 'api_token.create', actor_type: 'system', actor_id: 'demo-fleet' },
      { action: 'api_token.revoke', actor_type: 'system', actor_id: 'demo-fleet' },
    ]);

    // Whatever was in flight at the stop was ended and exported before the fleet said it had stopped: every
    // briefing with attempts has its run's span too, and every call's tries are numbered 1..n.
    const rows = await briefingAttempts('demo-briefing-');
    const tracesWithCalls = await database.sql<{ trace_id: string }[]>`
      select distinct trace_id from trace_spans
      where agent = ${BRIEFING_AGENT} and kind = 'call' and task_id like 'demo-briefing-%'`;
    const runs = new Set(await runTraces());
    expect(tracesWithCalls.filter((row) => !runs.has(row.trace_id))).toEqual([]);
    const numbers = new Map<string, number[]>();
    for (const row of rows)
      numbers.set(row.task_id + row.step, [...(numbers.get(row.task_id + row.step) ?? []), row.attempt_number]);
    for (const list of numbers.values()) expect(list).toEqual(list.map((_, index) => index + 1));
    // Model calls are priced from their tokens or cost nothing by rule, except a call cut off by the stop itself.
    const modelCalls = rows.filter(
      (row) => ['plan', 'summarize'].includes(row.step) && !row.error_text?.startsWith('cancelled'),
    );
    expect(modelCalls.every((row) => row.cost_source === 'priced' || row.cost_source === 'rule')).toBe(true);
  }, 180_000);
});
