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

const TIMESTAMP = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d{1,6})?(?:([+-])(\d\d)(?::?(\d\d))?|Z)?$/;

/** A real moment (no 31 February, no hour 25), so PostgreSQL never refuses the cast: a bad cursor is a notice, not a 500. */
function isRealTimestamp(text: string): boolean {
  const parts = TIMESTAMP.exec(text);
  if (!parts) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 9, 10].map((index) =>
    Number(parts[index] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  if (year < 1970 || hour > 23 || minute > 59 || second > 59 || offsetHours > 15 || offsetMinutes > 59) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** `<time>~<id>`: readable in the URL, and no time contains a tilde. */
export function encodeKeysetCursor(cursor: KeysetCursor): string {
  return `${cursor.at}~${cursor.id}`;
}

/** What a list's ids look like: a bigint (holds, audit records) or any text (keys). */
const ID_SHAPE = { bigint: /^[1-9]\d{0,17}$/, text: /^[^\0]{1,500}$/ } as const;

function decodeKeysetCursor(token: string, idType: keyof typeof ID_SHAPE): KeysetCursor | undefined {
  const split = token.indexOf('~');
  if (split < 0) return undefined;
  const at = token.slice(0, split);
  const id = token.slice(split + 1);
  if (!isRealTimestamp(at) || !ID_SHAPE[idType].test(id)) return undefined;
  return { at, id };
}

/**
 * A cursor parameter for a list whose ids are of `idType`: absent, or a cursor
 * this console could have written (anything else is refused, and readFilter says so).
 */
export function keysetCursorParam(idType: keyof typeof ID_SHAPE) {
  return z
    .string()
    .optional()
    .transform((token, context) => {
      if (!token) return undefined;
      const cursor = decodeKeysetCursor(token, idType);
      if (!cursor) {
        context.addIssue({ code: 'custom', message: 'not a page this console wrote' });
        return z.NEVER;
      }
      return cursor;
    });
}

/** The page a filter's `after`/`before` point to (`after` wins when a hand-made URL has both). */
export function keysetPosition(filter: { after?: KeysetCursor; before?: KeysetCursor }): KeysetPosition {
  if (filter.after) return { after: filter.after };
  if (filter.before) return { before: filter.before };
  return {};
}

/** Rows a console list shows a page. */
export const KEYSET_PAGE_SIZE = 50;
