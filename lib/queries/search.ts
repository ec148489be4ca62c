import 'server-only';
import { type SQL, sql } from 'drizzle-orm';
import { likeLiteral } from '@holdfast/engine/db';
import type { Executor } from '@holdfast/engine/db';
import type { HoldItemType } from '@holdfast/engine/db/schema';

/** What the console's search box can find, in the order the results page lists them. */
export const searchKinds = ['task', 'key', 'hold', 'dead_letter', 'step'] as const;
export type SearchKind = (typeof searchKinds)[number];

/** One thing found: `exact` when its id is the term itself rather than something starting with it. */
export type SearchHit =
  | { kind: 'task'; id: string; exact: boolean; agent: string | null; status: string | null }
  | { kind: 'key'; id: string; exact: boolean; status: string }
  | {
      kind: 'hold';
      id: string;
      exact: true;
      itemType: HoldItemType;
      itemId: string;
      status: string;
      owner: string;
    }
  | { kind: 'dead_letter'; id: string; exact: true; agent: string; step: string; status: string }
  | { kind: 'step'; id: string; exact: boolean; agent: string; step: string };

/** At most this many of each kind: a search is for jumping to one thing, not for browsing. */
export const SEARCH_LIMIT_PER_KIND = 10;

/**
 * "Starts with the term", written so a plain btree serves it. `like 'x%'` alone becomes
 * an index range only under the C collation (PostgreSQL 15 does not count C.UTF-8 as C,
 * and scans the whole primary key with a filter); the range `>= term and < next` is an
 * index condition in any collation, and `like` keeps the answer exact. Under a code-point
 * collation (C, C.UTF-8) the range holds every match; under a linguistic one it may miss
 * ids whose last characters are punctuation the collation ignores.
 */
function startsWith(column: SQL, term: string): SQL {
  const pattern = `${likeLiteral(term)}%`;
  const characters = Array.from(term);
  const last = characters.pop()?.codePointAt(0) ?? 0;
  // Past the last code point, or into the surrogates PostgreSQL refuses: the range keeps only its floor.
  if (last >= 0x10ffff || (last >= 0xd7ff && last < 0xe000))
    return sql`${column} >= ${term} and ${column} like ${pattern}`;
  const next = characters.join('') + String.fromCodePoint(last + 1);
  return sql`${column} >= ${term} and ${column} < ${next} and ${column} like ${pattern}`;
}

/** Hold and dead-letter ids are bigserials: only a whole number that fits a bigint can be one. */
const asRowId = (term: string) => (/^\d{1,18}$/.test(term) ? term : undefined);

type Row = Record<string, unknown>;
const rowsOf = async <T extends Row>(db: Executor, query: ReturnType<typeof sql>) => [...(await db.execute<T>(query))];

/**
 * Tasks by id or its start. A task is known by its budget (task_budgets_pkey) or,
 * reported without one, by its attempts (attempt_identities_pkey leads with task_id,
 * and is not partitioned). Exact ids are looked up by `=`, which the primary keys
 * serve in any collation, and starts-with as `startsWith` writes it.
 */
async function findTasks(db: Executor, term: string, limit: number): Promise<SearchHit[]> {
  const rows = await rowsOf<{ task_id: string; agent: string | null; status: string | null }>(
    db,
    sql`
      with found as (
        (select task_id from task_budgets where task_id = ${term})
        union (select task_id from attempt_identities where task_id = ${term} limit 1)
        union (select task_id from task_budgets where ${startsWith(sql`task_id`, term)} order by task_id limit ${limit})
        union (select distinct task_id from attempt_identities where ${startsWith(sql`task_id`, term)}
               order by task_id limit ${limit})
      )
      select found.task_id, budget.agent, budget.status
      from found left join task_budgets budget using (task_id)
      order by found.task_id = ${term} desc, found.task_id
      limit ${limit}`,
  );
  return rows.map((row) => ({
    kind: 'task',
    id: row.task_id,
    exact: row.task_id === term,
    agent: row.agent,
    status: row.status,
  }));
}

/** Idempotency keys by key or its start (idempotency_keys_pkey). */
async function findKeys(db: Executor, term: string, limit: number): Promise<SearchHit[]> {
  const rows = await rowsOf<{ key: string; status: string }>(
    db,
    sql`
      (select key, status from idempotency_keys where key = ${term})
      union
      (select key, status from idempotency_keys where ${startsWith(sql`key`, term)} order by key limit ${limit})
      order by 1 limit ${limit}`,
  );
  return rows
    .map((row): SearchHit => ({ kind: 'key', id: row.key, exact: row.key === term, status: row.status }))
    .sort((a, b) => Number(b.exact) - Number(a.exact));
}

/** A hold by its id (holds_pkey), open or cleared. */
async function findHold(db: Executor, term: string): Promise<SearchHit[]> {
  const id = asRowId(term);
  if (!id) return [];
  const rows = await rowsOf<{ id: string; item_type: HoldItemType; item_id: string; status: string; owner: string }>(
    db,
    sql`select id::text, item_type, item_id, status, owner from holds where id = ${id}::bigint`,
  );
  return rows.map((row) => ({
    kind: 'hold',
    id: row.id,
    exact: true,
    itemType: row.item_type,
    itemId: row.item_id,
    status: row.status,
    owner: row.owner,
  }));
}

/** A dead letter by its id (dead_letters_pkey), whatever its status. */
async function findDeadLetter(db: Executor, term: string): Promise<SearchHit[]> {
  const id = asRowId(term);
  if (!id) return [];
  const rows = await rowsOf<{ id: string; agent: string; step: string; status: string }>(
    db,
    sql`select id::text, agent, step, status from dead_letters where id = ${id}::bigint`,
  );
  return rows.map((row) => ({ kind: 'dead_letter', exact: true, ...row }));
}

/**
 * Steps by `agent/step`, by step name, or by the start of either. Every step ever
 * rolled up has a row in attempt_totals (one per agent and step, never deleted: a
 * small table); one reported since the last rollup pass is found by its attempts
 * (attempts_agent_step_started_at_idx) when named in full.
 */
async function findSteps(db: Executor, term: string, limit: number): Promise<SearchHit[]> {
  const slash = term.indexOf('/');
  const [agent, step] = slash > 0 ? [term.slice(0, slash), term.slice(slash + 1)] : [undefined, undefined];
  const rows = await rowsOf<{ agent: string; step: string }>(
    db,
    agent !== undefined && step !== undefined
      ? sql`
          (select agent, step from attempt_totals where agent = ${agent} and ${startsWith(sql`step`, step)}
           order by step limit ${limit})
          union
          (select agent, step from attempts where agent = ${agent} and step = ${step} limit 1)
          order by 1, 2 limit ${limit}`
      : sql`
          select agent, step from attempt_totals
          where (${startsWith(sql`step`, term)}) or (${startsWith(sql`agent`, term)})
          order by step = ${term} desc, agent, step limit ${limit}`,
  );
  return rows.map((row) => ({
    kind: 'step',
    id: `${row.agent}/${row.step}`,
    agent: row.agent,
    step: row.step,
    exact: `${row.agent}/${row.step}` === term || row.step === term,
  }));
}

/** Everything whose id is the term or starts with it, up to SEARCH_LIMIT_PER_KIND of each kind asked for. */
export async function searchById(
  db: Executor,
  params: { term: string; kinds?: readonly SearchKind[]; limitPerKind?: number },
): Promise<SearchHit[]> {
  const kinds = new Set(params.kinds ?? searchKinds);
  const limit = Math.min(params.limitPerKind ?? SEARCH_LIMIT_PER_KIND, SEARCH_LIMIT_PER_KIND);
  const none = Promise.resolve([] as SearchHit[]);
  const found = await Promise.all([
    kinds.has('task') ? findTasks(db, params.term, limit) : none,
    kinds.has('key') ? findKeys(db, params.term, limit) : none,
    kinds.has('hold') ? findHold(db, params.term) : none,
    kinds.has('dead_letter') ? findDeadLetter(db, params.term) : none,
    kinds.has('step') ? findSteps(db, params.term, limit) : none,
  ]);
  return found.flat();
}

/**
 * Where a search goes without showing a list: the one exact match, or else the one
 * thing found at all. Two exact matches (hold 42 and dead letter 42) make a list.
 */
export function soleMatch(hits: readonly SearchHit[]): SearchHit | undefined {
  const exact = hits.filter((hit) => hit.exact);
  if (exact.length === 1) return exact[0];
  return exact.length === 0 && hits.length === 1 ? hits[0] : undefined;
}
