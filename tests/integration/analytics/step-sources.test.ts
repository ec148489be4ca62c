import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { recordAttempt } from '../../../packages/engine/src/core';
import { parseStepsView } from '../../../lib/filters/steps';
import { dropAttemptPartitionsBefore } from '../../../packages/engine/src/db/attempt-partitions';
import { attempts } from '../../../packages/engine/src/db/schema';
import { getStepCostSources, getStepSources, getStepsWithSource } from '../../../lib/queries/step-sources';
import { getStepsPage, readStepsExport } from '../../../lib/queries/steps-page';
import { stepsCsv } from '../../../lib/console/steps-csv';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { anAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';
import { anAgent } from '../../support/actors';

const database = useTestDatabase();
const now = new Date('2026-11-20T12:00:00Z');
const retentionFloor = new Date('2026-10-21T00:00:00Z');
const agentToken = anAgent('token-1');
/** In-process (no actor): the library. */
const library = () => ({ db: database.db, clock: () => now });
/** With an agent's token: the HTTP API. */
const overHttp = () => ({ db: database.db, actor: agentToken, clock: () => now });
const pass = () => rollUpAttempts(database.db, { now, retentionFloor });
const at = (iso: string) => ({ startedAt: new Date(iso), finishedAt: new Date(new Date(iso).getTime() + 500) });

/** A span-made attempt, written as the traces receiver writes it (source traces). */
async function insertSpanAttempt(agent: string, step: string, iso: string) {
  await database.db.insert(attempts).values({ ...row(agent, step, iso), source: 'traces', costSource: 'priced' });
}

/** An attempt row as the log stores it, with no source (as rows recorded before sources were kept). */
function row(agent: string, step: string, iso: string) {
  const { taskId, attemptNumber } = anAttempt();
  return { taskId, agent, step, attemptNumber, ...at(iso), latencyMs: 500, outcome: 'succeeded' as const };
}

async function storedSources(agent: string) {
  const rows = await database.db.execute<{ step: string; source: string; last_seen_at: Date }>(sql`
    select step, source, last_seen_at from step_sources where agent = ${agent} order by step, source`);
  return rows.map((row) => [row.step, row.source, new Date(row.last_seen_at).toISOString()]);
}

describe('step_sources, kept by the rollup pass', () => {
  it("records each way a step's attempts came, with the latest start, only once the pass runs", async () => {
    const agent = 'src-pass';
    await recordAttempt(library(), anAttempt({ agent, step: 'draft', ...at('2026-11-20T09:00:00Z') }));
    await recordAttempt(library(), anAttempt({ agent, step: 'draft', ...at('2026-11-20T10:30:00Z') }));
    await recordAttempt(overHttp(), anAttempt({ agent, step: 'draft', ...at('2026-11-20T10:00:00Z') }));
    await recordAttempt(overHttp(), anAttempt({ agent, step: 'send', ...at('2026-11-20T11:00:00Z') }));
    await insertSpanAttempt(agent, 'send', '2026-11-20T11:45:00Z');
    // A row from before sources were kept names none, and counts for none.
    await database.db.insert(attempts).values(row(agent, 'legacy', '2026-11-20T08:00:00Z'));

    // Recording writes no source row: the pass does.
    expect(await storedSources(agent)).toEqual([]);
    await pass();
    expect(await storedSources(agent)).toEqual([
      ['draft', 'http', '2026-11-20T10:00:00.000Z'],
      ['draft', 'library', '2026-11-20T10:30:00.000Z'],
      ['send', 'http', '2026-11-20T11:00:00.000Z'],
      ['send', 'traces', '2026-11-20T11:45:00.000Z'],
    ]);
  });

  it('reads only the rows written since the last pass, and moves last_seen_at forward, never back', async () => {
    const agent = 'src-moves';
    await recordAttempt(library(), anAttempt({ agent, step: 'plan', ...at('2026-11-20T10:00:00Z') }));
    await pass();
    expect(await storedSources(agent)).toEqual([['plan', 'library', '2026-11-20T10:00:00.000Z']]);

    // Rows the last pass already took are not read again: a pass with nothing new leaves a cleared table empty.
    await database.db.execute(sql`delete from step_sources where agent = ${agent}`);
    await pass();
    expect(await storedSources(agent)).toEqual([]);

    await recordAttempt(library(), anAttempt({ agent, step: 'plan', ...at('2026-11-20T11:00:00Z') }));
    await pass();
    expect(await storedSources(agent)).toEqual([['plan', 'library', '2026-11-20T11:00:00.000Z']]);
    // A late report of an earlier attempt keeps the latest start.
    await recordAttempt(library(), anAttempt({ agent, step: 'plan', ...at('2026-11-20T07:00:00Z') }));
    await pass();
    expect(await storedSources(agent)).toEqual([['plan', 'library', '2026-11-20T11:00:00.000Z']]);
  });

  it('takes every kept row after a restore into another cluster (its transaction ids went backwards)', async () => {
    const agent = 'src-restore';
    await insertSpanAttempt(agent, 'call', '2026-11-20T09:15:00Z');
    await database.db.execute(sql`update rollup_state set processed_xid = '900000000000'::xid8`);
    await pass();
    expect(await storedSources(agent)).toEqual([['call', 'traces', '2026-11-20T09:15:00.000Z']]);
  });
});

describe('reading step sources', () => {
  it('lists each asked step its sources in the order library, HTTP, traces, and finds the steps of one source', async () => {
    const agent = 'src-read';
    await insertSpanAttempt(agent, 'both', '2026-11-20T11:30:00Z');
    await recordAttempt(overHttp(), anAttempt({ agent, step: 'both', ...at('2026-11-20T11:10:00Z') }));
    await recordAttempt(library(), anAttempt({ agent, step: 'both', ...at('2026-11-20T11:20:00Z') }));
    await recordAttempt(library(), anAttempt({ agent, step: 'inproc', ...at('2026-11-20T11:20:00Z') }));
    await pass();

    const sources = await getStepSources(database.db, [
      { agent, step: 'both' },
      { agent, step: 'inproc' },
      { agent, step: 'never-seen' },
    ]);
    expect([...sources.keys()].sort()).toEqual([`${agent}/both`, `${agent}/inproc`]);
    expect(sources.get(`${agent}/both`)).toEqual([
      { source: 'library', lastSeenAt: new Date('2026-11-20T11:20:00Z') },
      { source: 'http', lastSeenAt: new Date('2026-11-20T11:10:00Z') },
      { source: 'traces', lastSeenAt: new Date('2026-11-20T11:30:00Z') },
    ]);
    expect(await getStepSources(database.db, [])).toEqual(new Map());

    const traced = await getStepsWithSource(database.db, 'traces');
    expect(traced.has(`${agent}/both`)).toBe(true);
    expect(traced.has(`${agent}/inproc`)).toBe(false);
  });

  it("filters the Steps page by source and gives each shown step its badges' sources", async () => {
    const agent = 'src-page';
    await insertSpanAttempt(agent, 'spans_only', '2026-11-20T11:40:00Z');
    await recordAttempt(library(), anAttempt({ agent, step: 'library_only', ...at('2026-11-20T11:41:00Z') }));
    await pass();

    const all = await getStepsPage(database.db, parseStepsView({ window: '24h', agent }, now), undefined, now);
    expect(all.steps.map((row) => row.step).sort()).toEqual(['library_only', 'spans_only']);
    expect(all.sources.get(`${agent}/spans_only`)?.map((entry) => entry.source)).toEqual(['traces']);
    expect(all.sources.get(`${agent}/library_only`)?.map((entry) => entry.source)).toEqual(['library']);

    const traced = await getStepsPage(
      database.db,
      parseStepsView({ window: '24h', agent, source: 'traces' }, now),
      undefined,
      now,
    );
    expect(traced.steps.map((row) => row.step)).toEqual(['spans_only']);
    expect(traced.total).toBe(1);

    const overHttpOnly = parseStepsView({ window: '24h', agent, source: 'http' }, now);
    expect((await getStepsPage(database.db, overHttpOnly, undefined, now)).total).toBe(0);
    // A source that is none is ignored with a notice, as every bad parameter is.
    const odd = parseStepsView({ window: '24h', source: 'carrier-pigeon' }, now);
    expect(odd.source).toBeUndefined();
    expect(odd.notices).toEqual(['Ignored source=“carrier-pigeon”']);
  });
});

describe('step_cost_sources: how each step was costed, kept by the same pass', () => {
  it('notes each way of costing with its latest start, leaves running attempts out, and filters and exports by it', async () => {
    const agent = 'cost-src';
    // Reported by the agent; priced from tokens by the traces receiver; one from before costs were recorded.
    await recordAttempt(library(), anAttempt({ agent, step: 'draft', ...at('2026-11-20T10:00:00Z') }));
    await insertSpanAttempt(agent, 'draft', '2026-11-20T11:00:00Z');
    await insertSpanAttempt(agent, 'summarize', '2026-11-20T11:15:00Z');
    await database.db.insert(attempts).values(row(agent, 'legacy', '2026-11-20T08:00:00Z'));
    // Still running: no cost yet, so no way of costing.
    await database.db.insert(attempts).values({
      ...row(agent, 'running', '2026-11-20T11:50:00Z'),
      outcome: 'running',
      finishedAt: null,
      latencyMs: null,
    });
    await pass();

    const costed = await getStepCostSources(
      database.db,
      ['draft', 'summarize', 'legacy', 'running'].map((step) => ({ agent, step })),
    );
    expect(costed.get(`${agent}/draft`)).toEqual([
      { costSource: 'reported', lastSeenAt: new Date('2026-11-20T10:00:00Z') },
      { costSource: 'priced', lastSeenAt: new Date('2026-11-20T11:00:00Z') },
    ]);
    expect(costed.get(`${agent}/legacy`)?.map((each) => each.costSource)).toEqual(['unrecorded']);
    expect(costed.has(`${agent}/running`)).toBe(false);

    const priced = await getStepsPage(
      database.db,
      parseStepsView({ window: '24h', agent, cost: 'priced' }, now),
      undefined,
      now,
    );
    expect(priced.steps.map((step) => step.step).sort()).toEqual(['draft', 'summarize']);
    expect(priced.costSources.get(`${agent}/summarize`)?.map((each) => each.costSource)).toEqual(['priced']);
    const exported = await readStepsExport(database.db, parseStepsView({ window: '24h', agent }, now), now, 100);
    const csv = stepsCsv(exported!.steps, { costSources: exported!.costSources });
    const [header, ...lines] = csv.trim().split('\r\n');
    const column = header!.split(',').indexOf('cost_sources');
    const byStep = Object.fromEntries(lines.map((line) => [line.split(',')[1], line.split(',')[column]]));
    expect(byStep).toMatchObject({ draft: 'reported; priced', summarize: 'priced', legacy: 'unrecorded' });
    // A way that is none is ignored with a notice.
    expect(parseStepsView({ window: '24h', cost: 'guessed' }, now).notices).toEqual(['Ignored cost=“guessed”']);
  });
});

describe('step_sources and retention', () => {
  it('a way no kept attempt came by any more goes when its days are dropped; a recent one stays', async () => {
    await database.db.execute(sql`
      insert into step_sources (agent, step, source, last_seen_at) values
        ('retained', 'old_way', 'traces', '2026-09-01T10:00:00Z'),
        ('retained', 'new_way', 'library', '2026-11-19T10:00:00Z')`);
    await dropAttemptPartitionsBefore(database.db, new Date('2026-10-21T00:00:00Z'));
    expect(await storedSources('retained')).toEqual([['new_way', 'library', '2026-11-19T10:00:00.000Z']]);
  });
});
