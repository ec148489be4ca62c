import type { ReadSource } from '../read-source';

/** What a page says about where its figures come from; nothing when there is nothing worth saying. */
export interface ReadNotice {
  /** 'lag': read from a replica that is behind; 'fallback': read from the primary because the replica could not serve. */
  kind: 'lag' | 'fallback';
  text: string;
}

/** "12 s", "3 min". */
export function formatLag(seconds: number): string {
  const whole = Math.floor(seconds);
  return whole < 120 ? `${whole} s` : `${Math.floor(whole / 60)} min`;
}

/**
 * The notice for a read source. A replica less than a second behind, no
 * replica at all, or the primary chosen so this browser sees its own change:
 * silence. "As of" counts from when the figures were read (the Overview's
 * "updated N s ago" beside it says how long ago that was).
 */
export function readNotice(source: ReadSource | undefined): ReadNotice | undefined {
  if (!source) return undefined;
  if (source.from === 'replica') {
    if (source.lagSeconds < 1) return undefined;
    return {
      kind: 'lag',
      text: `Figures as of ${formatLag(source.lagSeconds)} ago: read from a replica that is behind the primary database.`,
    };
  }
  if (source.reason === 'unreachable')
    return {
      kind: 'fallback',
      text: 'The read replica is not answering: this page is read from the primary database.',
    };
  if (source.reason === 'lagging') {
    const behind =
      source.lagSeconds === null || source.lagSeconds === undefined
        ? 'cannot say how far behind it is'
        : `is ${formatLag(source.lagSeconds)} behind`;
    const limit = source.limitSeconds === undefined ? '' : ` (the limit is ${formatLag(source.limitSeconds)})`;
    return {
      kind: 'fallback',
      text: `The read replica ${behind}${limit}: this page is read from the primary database.`,
    };
  }
  return undefined;
}
