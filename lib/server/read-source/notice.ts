/**
 * Where a console read came from, and what the page says about it. Plain
 * code with no imports: the server sets it and the Overview's client island
 * reads it back from each poll (replica.ts decides, read-console.ts reads).
 */

/**
 * Why a read went to the primary: no replica configured, it did not answer,
 * it lags past the limit, this browser just wrote (read-your-writes), or the
 * replica did not have what was asked for yet (a detail page, a search).
 */
export type PrimaryReason = 'no_replica' | 'unreachable' | 'lagging' | 'own_write' | 'not_on_replica';

export type ReadSource =
  | { from: 'replica'; lagSeconds: number }
  /** When lagging: how far the replica was behind (null: it could not say), and the limit it passed. */
  | { from: 'primary'; reason: PrimaryReason; lagSeconds?: number | null; limitSeconds?: number };

/** The response header a console endpoint's GET names its read source in. */
export const READ_SOURCE_HEADER = 'x-holdfast-read-source';

/** The source as one header value (the Overview's polls read it) and back; a bad value reads as undefined. */
export function encodeReadSource(source: ReadSource): string {
  return JSON.stringify(source);
}

export function decodeReadSource(value: string | null): ReadSource | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<ReadSource> | null;
    if (parsed?.from === 'replica' && typeof parsed.lagSeconds === 'number') return parsed as ReadSource;
    if (parsed?.from === 'primary' && typeof parsed.reason === 'string') return parsed as ReadSource;
  } catch {
    // A header from something else: no source to show.
  }
  return undefined;
}

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
