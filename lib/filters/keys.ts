import { z } from 'zod';
import { withoutNul } from '@holdfast/engine/core';
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
