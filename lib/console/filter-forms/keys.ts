/** The Keys look-up as its page shows it: each field's label, and the URLs of a key and of a page of keys. */
import type { KeysFilter } from '../../filters/keys';

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
