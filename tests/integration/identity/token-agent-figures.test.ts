import { randomUUID } from 'node:crypto';
import { NextRequest } from 'next/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, saveSpendBudget } from '../../../packages/engine/src/core';
import type { TokenScope } from '../../../packages/engine/src/db/schema';
import { resetMetricsProcessState } from '../../../packages/engine/src/metrics/scrape';
import { useApi } from '../../support/api-harness';
import { aPerson } from '../../support/actors';

const api = useApi();
const admin = aPerson('admin', 'admin@example.com');
type Handler = (request: NextRequest) => Promise<Response>;

let metricsGET: Handler;
let stepStatsGET: Handler;
let spendBudgetsGET: Handler;
const tokens: Record<string, string> = {};

async function token(name: string, scopes: TokenScope[], allowedAgents?: string[]) {
  tokens[name] = (await createApiToken({ db: api.database.db, actor: admin }, { name, scopes, allowedAgents })).token;
}

const get = (handler: Handler, path: string, tokenName: string) =>
  handler(
    new NextRequest(`http://holdfast.test${path}`, { headers: { authorization: `Bearer ${tokens[tokenName]}` } }),
  );

async function report(agent: string, step: string) {
  const startedAt = new Date(Date.now() - 10 * 60_000);
  const answer = await api.request('/api/v1/attempts', {
    body: {
      taskId: `figures-${randomUUID()}`,
      agent,
      step,
      attemptNumber: 1,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date(startedAt.getTime() + 500).toISOString(),
      outcome: 'succeeded',
      costMicros: 10,
    },
  });
  expect(answer.status).toBe(201);
}

/** The agent labels of a scrape's series (every label `agent="…"`), and the metrics it names. */
function agentsAndMetrics(text: string) {
  const agents = new Set([...text.matchAll(/agent="([^"]*)"/g)].map((match) => match[1]));
  const metrics = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
  return { agents: [...agents].sort(), metrics };
}

beforeAll(async () => {
  ({ GET: metricsGET } = (await import('../../../app/metrics/route')) as { GET: Handler });
  ({ GET: stepStatsGET } = (await import('../../../app/api/v1/step-stats/route')) as { GET: Handler });
  ({ GET: spendBudgetsGET } = (await import('../../../app/api/v1/spend-budgets/route')) as { GET: Handler });
  await token('read-all', ['read']);
  await token('read-research', ['read'], ['research']);
  await token('metrics-all', ['metrics']);
  await token('metrics-research', ['metrics'], ['research']);
  await report('research', 'plan');
  await report('research', 'summarize');
  await report('payments', 'charge_card');
});

describe("a token limited to some agents sees only those agents' figures", () => {
  it('GET /api/v1/step-stats', async () => {
    const stepsSeenBy = async (name: string) => {
      const answer = await get(stepStatsGET, '/api/v1/step-stats?window=24h', name);
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { steps: { agent: string; step: string; attempts: number }[] };
      return body.steps.map(({ agent, step, attempts }) => `${agent}/${step}:${attempts}`).sort();
    };
    expect(await stepsSeenBy('read-research')).toEqual(['research/plan:1', 'research/summarize:1']);
    expect(await stepsSeenBy('read-all')).toEqual([
      'payments/charge_card:1',
      'research/plan:1',
      'research/summarize:1',
    ]);
  });

  it("GET /api/v1/spend-budgets: only the budgets of its agents, not the fleet's or another agent's", async () => {
    const budget = (name: string, scope: 'agent' | 'fleet', scopeValue: string) =>
      saveSpendBudget(
        { db: api.database.db, actor: admin },
        { name, scope, scopeValue, period: 'day', limitUsd: 5, reason: 'test' },
      );
    await budget('research daily', 'agent', 'research');
    await budget('payments daily', 'agent', 'payments');
    await budget('fleet daily', 'fleet', '');
    const budgetsSeenBy = async (name: string) => {
      const answer = await get(spendBudgetsGET, '/api/v1/spend-budgets', name);
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { budgets: { name: string }[] }).budgets.map((row) => row.name);
    };
    expect(await budgetsSeenBy('read-research')).toEqual(['research daily']);
    expect(await budgetsSeenBy('read-all')).toEqual(['fleet daily', 'payments daily', 'research daily']);
  });

  it('GET /metrics, for a metrics token and a read token alike, even right after an unlimited scrape was cached', async () => {
    resetMetricsProcessState();
    const all = agentsAndMetrics(await (await get(metricsGET, '/metrics', 'metrics-all')).text());
    expect(all.agents).toEqual(['payments', 'research']);
    expect(all.metrics.has('holdfast_holds_open')).toBe(true);

    for (const name of ['metrics-research', 'read-research']) {
      const answer = await get(metricsGET, '/metrics', name);
      expect(answer.status).toBe(200);
      const text = await answer.text();
      const limited = agentsAndMetrics(text);
      expect(limited.agents, name).toEqual(['research']);
      expect(text).toContain('holdfast_attempts_total{agent="research",step="plan"} 1');
      // Fleet-wide figures sum other agents' work: left out, not shown as 0.
      for (const fleetWide of [
        'holdfast_holds_open',
        'holdfast_slot_locks_stale',
        'holdfast_sweep_last_duration_seconds',
      ])
        expect(limited.metrics.has(fleetWide), fleetWide).toBe(false);
    }
    // The unlimited text is still whole (each scope has its own cached render).
    expect(agentsAndMetrics(await (await get(metricsGET, '/metrics', 'metrics-all')).text()).agents).toEqual([
      'payments',
      'research',
    ]);
  });
});
