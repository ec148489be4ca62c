import { z } from 'zod';

/**
 * Where a page of a keyset-paged list starts: the sort time of a row (as
 * Postgres wrote it, to the microsecond, so ties and sub-millisecond times
 * page exactly) and its id, which breaks ties. Carried in the URL as `after`
 * (the page following that row) or `before` (the page preceding it).
 */
export interface KeysetCursor {
  at: string;
  id: string;
}

/** What a page needs to know: the cursor and which side of it the page lies. */
export type KeysetPosition = { after: KeysetCursor } | { before: KeysetCursor } | Record<string, never>;

const TIMESTAMP = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d{1,6})?([+-]\d\d(:?\d\d)?|Z)?$/;

/** `<time>~<id>`: readable in the URL, and no time contains a tilde. */
export function encodeKeysetCursor(cursor: KeysetCursor): string {
  return `${cursor.at}~${cursor.id}`;
}

function decodeKeysetCursor(token: string): KeysetCursor | undefined {
  const split = token.indexOf('~');
  if (split < 0) return undefined;
  const at = token.slice(0, split);
  const id = token.slice(split + 1);
  if (!TIMESTAMP.test(at) || id.length === 0 || id.length > 500 || id.includes('\0')) return undefined;
  return { at, id };
}

/** A cursor parameter: absent, or a cursor this console wrote (anything else is refused, and readFilter says so). */
export const keysetCursorParam = z
  .string()
  .optional()
  .transform((token, context) => {
    if (!token) return undefined;
    const cursor = decodeKeysetCursor(token);
    if (!cursor) {
      context.addIssue({ code: 'custom', message: 'not a page this console wrote' });
      return z.NEVER;
    }
    return cursor;
  });

/** The page a filter's `after`/`before` point to (`after` wins when a hand-made URL has both). */
export function keysetPosition(filter: { after?: KeysetCursor; before?: KeysetCursor }): KeysetPosition {
  if (filter.after) return { after: filter.after };
  if (filter.before) return { before: filter.before };
  return {};
}

/** Rows a console list shows a page. */
export const KEYSET_PAGE_SIZE = 50;
