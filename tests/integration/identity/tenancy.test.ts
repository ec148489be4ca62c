import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiToken, type Actor } from '../../../packages/engine/src/core';
import { flushReplayTallies } from '../../../packages/engine/src/core/keys/replay-tally';
import { useApi } from '../../support/api-harness';
import { aDeadLetterInput } from '../../support/dead-letter-input';
import { issueToken } from '../../support/api-tokens';
import { attemptOf } from '../../support/step-input';
import { failedChatExport } from '../../support/otlp-json';

/**
 * The tenancy matrix: every agent endpoint, against the caller's own task,
 * another agent's task, and a raw key shaped like another task's step key,
 * with a token limited to the caller's agent and with an unlimited one. The
 * caller is agent `research`; the other agent, `payments`, works with a token
 * of its own. Each cell gets fresh work, and every refusal leaves the
 * database as it was.
 */
const api = useApi();
const tokens = { limited: '', queueLimited: '', readOnly: '', tracesOnly: '', payments: '' };

beforeAll(async () => {
  tokens.limited = (await issueToken(api.database.db, { name: 'research-only', allowedAgents: ['research'] })).token;
  tokens.queueLimited = (
    await issueToken(api.database.db, { name: 'research-queue', allowedQueues: ['research'] })
  ).token;
  tokens.readOnly = (await issueToken(api.database.db, { name: 'reader', scopes: ['read'] })).token;
  tokens.tracesOnly = (
    await issueToken(api.database.db, { name: 'research-spans', scopes: ['traces'], allowedAgents: ['research'] })
  ).token;
  tokens.payments = (await issueToken(api.database.db, { name: 'payments-only', allowedAgents: ['payments'] })).token;
});

/** The token kinds: ingest unlimited; ingest limited to agent research; ingest limited to queue research; read; traces for research. */
const callers = ['unlimited', 'limited', 'queue-limited', 'read-only', 'traces-only'] as const;
type Caller = (typeof callers)[number];
type Target = 'own task' | "another agent's task" | 'raw key shaped like its step key';
const tokenOf = (caller: Caller) =>
  ({
    unlimited: api.ingestToken,
    limited: tokens.limited,
    'queue-limited': tokens.queueLimited,
    'read-only': tokens.readOnly,
    'traces-only': tokens.tracesOnly,
  })[caller];
/** The task's own work is done with a token that may write it: the read-only and traces-only callers cannot. */
const workerTokenOf = (caller: Caller) =>
  caller === 'read-only' || caller === 'traces-only' ? tokens.limited : tokenOf(caller);

/** A task of `agent` as its own worker leaves it: a completed step, a step in progress, and a raw key of the task. */
async function workOf(agent: 'research' | 'payments', token: string) {
  const taskId = `${agent}-${randomUUID()}`;
  const post = async (path: string, body: unknown) => {
    const response = await api.request(path, { body, token });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const begin = (step: string) =>
    post('/api/v1/steps/begin', { taskId, agent, owner: `team:${agent}`, step, content: { order: 1 } });
  const charge = await begin('charge');
  await post('/api/v1/steps/finish', { ...attemptOf(charge), outcome: 'succeeded', result: { charged: agent } });
  const open = await begin('ship');
  const raw = await post('/api/v1/keys/claim', { key: `extra-${randomUUID()}`, requestHash: 'h', taskId });
  return {
    taskId,
    chargeKey: String(charge.key),
    open: { key: String(open.key), fencingToken: Number(open.fencingToken) },
    raw: { key: String(raw.key), fencingToken: Number(raw.fencingToken) },
  };
}
type Work = Awaited<ReturnType<typeof workOf>>;

const now = () => new Date().toISOString();
const attempt = (taskId: string) => ({
  taskId,
  agent: 'research',
  step: 'charge',
  attemptNumber: 9,
  startedAt: now(),
  finishedAt: now(),
  outcome: 'succeeded',
  costMicros: 4_990_000,
});

/** An OTLP/JSON export of one counted model call of the task's step `charge`, sent as agent research. */
const spanOf = (taskId: string) => failedChatExport(taskId, 'research');

/** Each endpoint's request for a target; null where the target does not apply to the endpoint. */
const requests: Record<string, (work: Work, target: Target) => unknown | null> = {
  '/api/v1/steps/begin': (work, target) => ({
    taskId: target === 'raw key shaped like its step key' ? `raw:${work.taskId}` : work.taskId,
    agent: 'research',
    owner: 'team:research',
    step: 'charge',
    content: { order: 1 },
    estimatedCostMicros: 1_000,
  }),
  '/api/v1/steps/finish': (work, target) =>
    target === 'raw key shaped like its step key'
      ? null
      : {
          ...work.open,
          outcome: 'failed',
          errorClass: 'transient',
          errorText: '503 from the refund service',
          costMicros: 4_990_000,
        },
  '/api/v1/tasks/finish': (work, target) =>
    target === 'raw key shaped like its step key' ? null : { taskId: work.taskId, outcome: 'failed' },
  '/api/v1/dead-letters': (work, target) =>
    target === 'raw key shaped like its step key'
      ? null
      : aDeadLetterInput({
          taskId: work.taskId,
          agent: 'research',
          queue: 'research',
          lastError: 'refused',
          owner: 'team:research',
        }),
  '/api/v1/keys/claim': (work, target) =>
    target === 'raw key shaped like its step key'
      ? { key: work.chargeKey, requestHash: 'forged' }
      : { key: `more-${randomUUID()}`, requestHash: 'h', taskId: work.taskId },
  '/api/v1/keys/complete': (work, target) =>
    target === 'raw key shaped like its step key'
      ? { ...work.open, result: { charged: true } }
      : { ...work.raw, result: { charged: true } },
  '/api/v1/keys/fail': (work, target) => ({
    ...(target === 'raw key shaped like its step key' ? work.open : work.raw),
    errorClass: 'permanent',
    errorText: 'forged',
  }),
  '/api/v1/attempts': (work, target) => (target === 'raw key shaped like its step key' ? null : attempt(work.taskId)),
  '/api/v1/attempts/batch': (work, target) =>
    target === 'raw key shaped like its step key' ? null : { attempts: [attempt(work.taskId)] },
  '/v1/traces': (work, target) => (target === 'raw key shaped like its step key' ? null : spanOf(work.taskId)),
  '/api/v1/holds': (work, target) => ({
    itemType: target === 'raw key shaped like its step key' ? 'key' : 'task',
    itemId: target === 'raw key shaped like its step key' ? work.chargeKey : work.taskId,
    reason: 'needs_approval',
    detail: 'check',
    owner: 'team:research',
  }),
};

/** The truth table: status and code per endpoint, target and caller (in the order of `callers`). */
type Cell = [number, string | null];
const ok200: Cell = [200, null];
const ok201: Cell = [201, null];
const forbidden: Cell = [403, 'FORBIDDEN'];
const notFound: Cell = [404, 'NOT_FOUND'];
const invalid: Cell = [400, 'INVALID_INPUT'];
type Row = [Cell, Cell, Cell, Cell, Cell];
/** Only ingest tokens act on the agent endpoints: a read or traces token is refused before anything is read. */
const ingestOnly = (unlimited: Cell, limited: Cell, queueLimited: Cell): Row => [
  unlimited,
  limited,
  queueLimited,
  forbidden,
  forbidden,
];
const expected: Record<string, Record<Target, Row | null>> = {
  // Task ids are each agent's own: another agent's id names this agent's task of that name (its alias, ADR 0008).
  '/api/v1/steps/begin': {
    'own task': ingestOnly(ok200, ok200, ok200),
    "another agent's task": ingestOnly(ok200, ok200, ok200),
    'raw key shaped like its step key': ingestOnly(invalid, invalid, invalid),
  },
  // A finish names no agent: the unlimited token may act for any agent, but not finish an attempt another token began.
  '/api/v1/steps/finish': {
    'own task': ingestOnly(ok200, ok200, ok200),
    "another agent's task": ingestOnly(forbidden, forbidden, forbidden),
    'raw key shaped like its step key': null,
  },
  '/api/v1/tasks/finish': {
    'own task': ingestOnly(ok200, ok200, ok200),
    "another agent's task": ingestOnly(ok200, forbidden, forbidden),
    'raw key shaped like its step key': null,
  },
  '/api/v1/dead-letters': {
    'own task': ingestOnly(ok201, ok201, ok201),
    "another agent's task": ingestOnly(ok201, ok201, ok201),
    'raw key shaped like its step key': null,
  },
  // A raw claim of a step key's name is a raw key of its own: it never meets the step key.
  '/api/v1/keys/claim': {
    'own task': ingestOnly(ok200, ok200, ok200),
    "another agent's task": ingestOnly(ok200, forbidden, forbidden),
    'raw key shaped like its step key': ingestOnly(ok200, ok200, ok200),
  },
  // A raw key is settled only by the token whose claim holds it, as a step attempt is finished.
  '/api/v1/keys/complete': {
    'own task': ingestOnly(ok200, ok200, ok200),
    "another agent's task": ingestOnly(forbidden, forbidden, forbidden),
    'raw key shaped like its step key': ingestOnly(notFound, notFound, notFound),
  },
  '/api/v1/keys/fail': {
    'own task': ingestOnly(ok200, ok200, ok200),
    "another agent's task": ingestOnly(forbidden, forbidden, forbidden),
    'raw key shaped like its step key': ingestOnly(notFound, notFound, notFound),
  },
  '/api/v1/attempts': {
    'own task': ingestOnly(ok201, ok201, ok201),
    "another agent's task": ingestOnly(ok201, ok201, ok201),
    'raw key shaped like its step key': null,
  },
  '/api/v1/attempts/batch': {
    'own task': ingestOnly(ok200, ok200, ok200),
    "another agent's task": ingestOnly(ok200, ok200, ok200),
    'raw key shaped like its step key': null,
  },
  // Spans are placed like every other write; an ingest token may export them.
  '/v1/traces': {
    'own task': [ok200, ok200, ok200, forbidden, ok200],
    "another agent's task": [ok200, ok200, ok200, forbidden, ok200],
    'raw key shaped like its step key': null,
  },
  '/api/v1/holds': {
    'own task': ingestOnly(ok201, ok201, ok201),
    "another agent's task": ingestOnly(ok201, forbidden, forbidden),
    'raw key shaped like its step key': ingestOnly(ok201, forbidden, forbidden),
  },
};

/** The endpoints whose request names the agent it acts for (here research): they act on research's tasks only. */
const NAMES_ITS_AGENT = new Set([
  '/api/v1/steps/begin',
  '/api/v1/dead-letters',
  '/api/v1/attempts',
  '/api/v1/attempts/batch',
  '/v1/traces',
]);

/** The other agent's task as stored, one fingerprint per table: whatever a request answered, it is unchanged. */
async function victimPrint(taskId: string): Promise<Record<string, string>> {
  await flushReplayTallies();
  const queries: Record<string, string> = {
    task_budgets: 'select t::text as r from task_budgets t where task_id = $1',
    task_agents: 'select t::text as r from task_agents t where task_id = $1',
    idempotency_keys: 'select t::text as r from idempotency_keys t where task_id = $1',
    attempts: 'select t::text as r from attempts t where task_id = $1',
    trace_spans: 'select t::text as r from trace_spans t where task_id = $1',
    dead_letters: 'select t::text as r from dead_letters t where task_id = $1',
    holds: `select t::text as r from holds t where item_id = $1 or item_id like $1 || '/%'
      or item_id in (select id::text from dead_letters where task_id = $1)`,
  };
  const prints: Record<string, string> = {};
  for (const [table, query] of Object.entries(queries)) {
    const rows = await api.database.sql.unsafe<{ r: string }[]>(`${query} order by 1`, [taskId]);
    prints[table] = rows.map((row) => row.r).join('|');
  }
  return prints;
}

/** Everything an agent endpoint may write, as one fingerprint per table. */
async function fingerprint(): Promise<Record<string, string>> {
  // Replays answered earlier are added to their keys' claim_calls in batches: written now, so a batch landing
  // between a request and the next print is not taken for the request's doing.
  await flushReplayTallies();
  const tables = [
    'task_budgets',
    'task_agents',
    'idempotency_keys',
    'attempts',
    'trace_spans',
    'dead_letters',
    'holds',
    'audit_log',
    'redrives',
  ];
  const prints: Record<string, string> = {};
  for (const table of tables) {
    const [row] = await api.database.sql.unsafe<{ print: string | null }[]>(
      `select md5(string_agg(t::text, '|' order by t::text)) as print from ${table} t`,
    );
    prints[table] = row?.print ?? 'empty';
  }
  return prints;
}

const targets: Target[] = ['own task', "another agent's task", 'raw key shaped like its step key'];
const cells = Object.entries(expected).flatMap(([path, row]) =>
  targets.flatMap((target) =>
    callers.flatMap((caller, index) => {
      const cell = row[target]?.[index];
      return cell ? [{ path, target, caller, status: cell[0], code: cell[1] }] : [];
    }),
  ),
);

describe('the tenancy matrix', () => {
  it('covers every agent endpoint that acts on a task or a key', () => {
    expect(Object.keys(expected).sort()).toEqual(Object.keys(requests).sort());
    expect(cells).toHaveLength(5 * 27);
  });

  it.each(cells)(
    '$path on $target with the $caller token: $status $code',
    async ({ path, target, caller, status, code }) => {
      const work =
        target === 'own task'
          ? await workOf('research', workerTokenOf(caller))
          : await workOf('payments', tokens.payments);
      const body = requests[path]!(work, target);
      const refused = status >= 400 || code === 'SPAN_REJECTED';
      const before = refused ? await fingerprint() : undefined;
      // The unlimited token may act for any agent: naming no agent, it acts on the other agent's task by design.
      const mayTouchVictim = caller === 'unlimited' && !NAMES_ITS_AGENT.has(path);
      const victimBefore = target === 'own task' || mayTouchVictim ? undefined : await victimPrint(work.taskId);
      const response = await api.request(path, { body, token: tokenOf(caller) });
      const rejectedSpans = (response.body.partialSuccess as { rejectedSpans?: string } | undefined)?.rejectedSpans;
      const answered = response.body.code ?? (rejectedSpans === '1' ? 'SPAN_REJECTED' : null);
      expect({ status: response.status, code: answered }).toEqual({ status, code });
      if (before) expect(await fingerprint()).toEqual(before);
      if (victimBefore) expect(await victimPrint(work.taskId)).toEqual(victimBefore);

      if (target !== 'own task') {
        // Whatever was answered, the other agent's step keys still hold its own outcomes.
        const replay = await api.request('/api/v1/steps/begin', {
          token: tokens.payments,
          body: {
            taskId: work.taskId,
            agent: 'payments',
            owner: 'team:payments',
            step: 'charge',
            content: { order: 1 },
          },
        });
        if (replay.status === 200)
          expect(replay.body).toMatchObject({ decision: 'replay', result: { charged: 'payments' } });
      }
    },
  );
});

describe('the reported attacks, replayed', () => {
  const paymentsBegin = (taskId: string, step: string, extra: Record<string, unknown> = {}) =>
    api.request('/api/v1/steps/begin', {
      token: tokens.payments,
      body: { taskId, agent: 'payments', owner: 'team:payments', step, content: { cents: 499 }, ...extra },
    });

  it('H1: a research token cannot read, charge, dead-letter or reserve against a payments task', async () => {
    const taskId = `payments-${randomUUID()}`;
    expect((await paymentsBegin(taskId, 'quote', { spendCeilingMicros: 5_000_000 })).status).toBe(200);
    const before = await victimPrint(taskId);
    const asResearch = (body: Record<string, unknown>) =>
      api.request('/api/v1/steps/begin', {
        token: tokens.limited,
        body: { taskId, agent: 'research', owner: 'team:research', content: { cents: 499 }, ...body },
      });
    // research's begins of the id run research's own task of that name (its alias), never payments'.
    expect((await asResearch({ step: 'quote' })).body).toMatchObject({ key: `~research/${taskId}/quote` });
    expect((await asResearch({ step: 'refund', estimatedCostMicros: 4_990_000 })).body).toMatchObject({
      key: `~research/${taskId}/refund`,
    });
    // A reservation is held against research's own task's ceiling, not payments'.
    expect(
      (await asResearch({ step: 'hog', estimatedCostMicros: 4_990_000, inProgressTtlMs: 86_400_000 })).body,
    ).toMatchObject({ decision: 'stop', reason: 'budget_exhausted' });
    const [stopped] = await api.database.sql<{ task_id: string }[]>`
      select task_id from dead_letters where task_id like ${`%${taskId}`}`;
    expect(stopped!.task_id).toBe(`~research/${taskId}`);
    // Naming the payments agent does not help: the token may not act for it.
    expect((await asResearch({ step: 'refund', agent: 'payments', owner: 'team:payments' })).status).toBe(403);
    expect(await victimPrint(taskId)).toEqual(before);
  });

  it('H2: a raw claim of a step key name stores nothing the step engine reads', async () => {
    const taskId = `payments-${randomUUID()}`;
    const forged = { key: `${taskId}/charge`, requestHash: 'whatever', taskId: undefined };
    const claimed = await api.request('/api/v1/keys/claim', { token: tokens.limited, body: forged });
    expect(claimed.status).toBe(200);
    const completed = await api.request('/api/v1/keys/complete', {
      token: tokens.limited,
      body: { key: forged.key, fencingToken: claimed.body.fencingToken, result: { charged: true } },
    });
    expect(completed.status).toBe(200);
    // The payments agent's first begin of charge runs it: no forged replay, no payload mismatch hold.
    const begun = await paymentsBegin(taskId, 'charge');
    expect(begun.body).toMatchObject({ decision: 'run', key: `${taskId}/charge`, attemptNumber: 1 });
    const holds = await api.database.sql`select 1 from holds where item_id = ${taskId}`;
    expect(holds).toHaveLength(0);
    const [raw] = await api.database.sql<{ key: string }[]>`
      select key from idempotency_keys where key = ${`raw:${taskId}/charge`}`;
    expect(raw?.key).toBe(`raw:${taskId}/charge`);
  });
});

describe('a fencing token is no capability on its own', () => {
  it('an attempt is finished only by the API token that began it, even for the same agent', async () => {
    const admin2: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
    const second = (
      await createApiToken({ db: api.database.db, actor: admin2 }, { name: 'research-too', scopes: ['ingest'] })
    ).token;
    const taskId = `research-${randomUUID()}`;
    const begun = await api.request('/api/v1/steps/begin', {
      token: tokens.limited,
      body: { taskId, agent: 'research', owner: 'team:research', step: 'summarise', content: { doc: 1 } },
    });
    expect(begun.body).toMatchObject({ decision: 'run', fencingToken: 1 });
    const finish = { key: begun.body.key, fencingToken: 1, outcome: 'succeeded', result: { summary: 'forged' } };
    const before = await fingerprint();
    const guessed = await api.request('/api/v1/steps/finish', { token: second, body: finish });
    expect(guessed).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect(await fingerprint()).toEqual(before);
    const own = await api.request('/api/v1/steps/finish', {
      token: tokens.limited,
      body: { ...finish, result: 'real' },
    });
    expect(own.body).toMatchObject({ decision: 'completed' });
  });

  it('a raw key is settled only by the API token whose claim holds it, even for the same agent', async () => {
    const admin2: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
    const second = (
      await createApiToken({ db: api.database.db, actor: admin2 }, { name: 'research-also', scopes: ['ingest'] })
    ).token;
    const key = `send-${randomUUID()}`;
    const claimed = await api.request('/api/v1/keys/claim', { token: tokens.limited, body: { key, requestHash: 'h' } });
    expect(claimed.body).toMatchObject({ outcome: 'acquired', fencingToken: 1 });
    const before = await fingerprint();
    for (const [path, settle] of [
      ['/api/v1/keys/complete', { result: { sent: 'forged' } }],
      ['/api/v1/keys/fail', { errorClass: 'permanent', errorText: 'forged' }],
    ] as const) {
      const guessed = await api.request(path, { token: second, body: { key, fencingToken: 1, ...settle } });
      expect(guessed).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    }
    expect(await fingerprint()).toEqual(before);
    const own = await api.request('/api/v1/keys/complete', {
      token: tokens.limited,
      body: { key, fencingToken: 1, result: { sent: true } },
    });
    expect(own.status).toBe(200);
    const replay = await api.request('/api/v1/keys/claim', { token: second, body: { key, requestHash: 'h' } });
    expect(replay.body).toMatchObject({ outcome: 'replay', result: { sent: true } });
  });
});
