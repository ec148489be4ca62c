import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import type { AgentRun } from './span-runs';

/** Stores a batch's runs, each once (a batch sent again adds nothing), in one statement. */
export async function storeRuns(db: Executor, runs: readonly AgentRun[]): Promise<void> {
  if (runs.length === 0) return;
  const rows = runs.map((run) => ({
    trace_id: run.traceId,
    span_id: run.spanId,
    agent: run.agent,
    name: run.name,
    convention: run.convention,
    started_at: new Date(run.startedAtMs).toISOString(),
    finished_at: new Date(run.finishedAtMs).toISOString(),
    outcome: run.outcome,
    error_text: run.errorText,
  }));
  await db.execute(sql`
    insert into agent_runs (trace_id, span_id, agent, name, convention, started_at, finished_at, outcome, error_text)
    select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(trace_id text, span_id text, agent text,
      name text, convention text, started_at timestamptz, finished_at timestamptz, outcome text, error_text text)
    on conflict (trace_id, span_id) do nothing`);
}
