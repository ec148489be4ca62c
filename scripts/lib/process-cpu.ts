import fs from 'node:fs/promises';
import type { Sql } from 'postgres';

/**
 * CPU time spent so far, read from /proc (Linux). Unlike a round's wall clock, a process's CPU time per unit
 * of work is barely moved by other load on a shared machine, so the benchmarks print it beside their rates.
 */

/** Clock ticks per second in /proc's times (USER_HZ: 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of a process so far, in ms; 0 for a process that has ended. */
export async function processCpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  let stat: string;
  try {
    stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // Fields after the command (which may hold spaces), from its closing parenthesis: utime is the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * The CPU time of the PostgreSQL backends serving one database, so far: a map of backend pid to ms. Take it
 * before and after a round and subtract (cpuSpentBetween): a connection opened during the round counts from 0.
 */
export async function databaseBackendsCpuMs(sql: Sql): Promise<Map<number, number>> {
  const rows = await sql<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`;
  const entries = await Promise.all(rows.map(async ({ pid }) => [pid, await processCpuMs(pid)] as const));
  return new Map(entries);
}

export function cpuSpentBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}
