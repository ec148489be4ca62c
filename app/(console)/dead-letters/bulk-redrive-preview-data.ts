import type { previewBulkRedriveAction } from './actions';

/** What the bulk redrive's preview answers: the panel shows it, and the braked counts read it. */
export type BulkRedrivePreviewData = Extract<
  Awaited<ReturnType<typeof previewBulkRedriveAction>>,
  { ok: true }
>['data'];
