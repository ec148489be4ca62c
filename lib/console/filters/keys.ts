import { z } from 'zod';
import { withoutNul } from '../../auth/console-input';

const text = withoutNul(
  z
    .string()
    .trim()
    .max(500)
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
);

/** The Keys page's look-up (key, task, step) and the key it shows in full (`show`). */
export const keysFilter = z.object({ key: text, taskId: text, step: text, show: text });

export type KeysFilter = z.output<typeof keysFilter>;

/** What each field is called on the page. */
export const keysFilterLabels = {
  key: 'Key (or its start)',
  taskId: 'Task',
  step: 'Step',
  show: 'Key shown',
} as const satisfies Record<keyof KeysFilter, string>;

/** The Keys page showing one key in full. */
export const keyHref = (key: string) => `/keys?show=${encodeURIComponent(key)}`;
