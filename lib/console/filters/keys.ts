import { z } from 'zod';
import { withoutNul } from '../../auth/console-input';
import { keysetCursorParam } from './keyset-cursor';

const text = withoutNul(
  z
    .string()
    .trim()
    .max(500)
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
);

/**
 * The Keys page's look-up (key, task, step), the key it shows in full
 * (`show`), and the page of keys found (`after`/`before`, keyset paging).
 */
export const keysFilter = z.object({
  key: text,
  taskId: text,
  step: text,
  show: text,
  after: keysetCursorParam('text'),
  before: keysetCursorParam('text'),
});

export type KeysFilter = z.output<typeof keysFilter>;

/** What each field is called on the page. */
export const keysFilterLabels = {
  key: 'Key (or its start)',
  taskId: 'Task',
  step: 'Step',
  show: 'Key shown',
  after: 'Page',
  before: 'Page',
} as const satisfies Record<keyof KeysFilter, string>;

/** The Keys page showing one key in full. */
export const keyHref = (key: string) => `/keys?show=${encodeURIComponent(key)}`;

/** The Keys page with the look-up as written (and the key shown), at the page of keys found beside a cursor. */
export function keysPageHref(accepted: Record<string, string>, page?: { side: 'after' | 'before'; cursor: string }) {
  const { after: _after, before: _before, ...lookUp } = accepted;
  const params = new URLSearchParams(lookUp);
  if (page) params.set(page.side, page.cursor);
  const query = params.toString();
  return `/keys${query ? `?${query}` : ''}`;
}
