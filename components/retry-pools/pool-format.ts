import { formatCount } from '@/lib/console/format';
import { visibleText } from '@/lib/console/visible-text';

/** `*` is how a pool for every step of its agent is stored. */
export const ALL_STEPS = '*';

/** A pool's scope as people read it: "outreach / all steps", "outreach / send_email"; bidi controls shown, not applied. */
export function poolScope(pool: { agent: string; step: string }): string {
  return visibleText(`${pool.agent} / ${pool.step === ALL_STEPS ? 'all steps' : pool.step}`);
}

/** A window length: "45 s", "5 min", "2 h". */
export function formatWindow(seconds: number): string {
  if (seconds % 3_600 === 0) return `${formatCount(seconds / 3_600)} h`;
  if (seconds % 60 === 0) return `${formatCount(seconds / 60)} min`;
  return `${formatCount(seconds)} s`;
}

/** The budget and floor as one phrase: "20% of first attempts + 0.1/s". */
export function poolRule(pool: { budgetPercent: number; minRetriesPerSecond: number }): string {
  return `${formatCount(pool.budgetPercent)}% of first attempts + ${formatCount(pool.minRetriesPerSecond)}/s`;
}
