import type { Compared } from '@/lib/queries/overview';

/** What a headline figure says about its previous window. */
export type ChangeReading =
  /** No history is kept for this figure (dead letters, locks, keys): it is shown as it is now. */
  | { kind: 'now-only' }
  /** The previous window held no attempts, so an attempt figure's `before` of 0 measured nothing. */
  | { kind: 'no-earlier-data' }
  | { kind: 'no-change' }
  | { kind: 'up' | 'down'; from: number };

/**
 * Reads a figure against the window before. `fromAttempts`: the figure is
 * counted from attempts (attempts, retry rate, retry spend, retry share), so an
 * empty previous window leaves it nothing to compare with. Holds are counted
 * as they stood when the window began, so their 0 is a real 0.
 */
export function readChange(
  figure: Compared,
  { fromAttempts, previousWindowHadAttempts }: { fromAttempts: boolean; previousWindowHadAttempts: boolean },
): ChangeReading {
  if (figure.before === null) return { kind: 'now-only' };
  if (fromAttempts && !previousWindowHadAttempts) return { kind: 'no-earlier-data' };
  if (figure.now === figure.before) return { kind: 'no-change' };
  return { kind: figure.now > figure.before ? 'up' : 'down', from: figure.before };
}
