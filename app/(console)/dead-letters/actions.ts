'use server';

import { after } from 'next/server';
import {
  cancelBulkRedrive,
  discardDeadLetter,
  previewBulkRedrive,
  redriveDeadLetter,
  runBulkRedrive,
  startBulkRedrive,
  type BulkRedrivePreview,
  type DeadLetterFilter,
  type RedriveBrakeRule,
} from '@/lib/core';
import type { BulkRedrive } from '@/lib/db/schema';
import { field, runAction, type ActionResult } from '@/lib/server/action';

type Changed = ActionResult<{ changed: boolean }> | undefined;

export async function redriveAction(_previous: Changed, formData: FormData) {
  return redrive(formData, false);
}

/** An admin's redrive past the redrive brakes; the audit record names the brakes overridden. */
export async function redriveOverridingBrakesAction(_previous: Changed, formData: FormData) {
  return redrive(formData, true);
}

async function redrive(formData: FormData, overrideBrakes: boolean) {
  return runAction(
    async (ctx) => {
      const { changed } = await redriveDeadLetter(ctx, {
        deadLetterId: Number(field(formData, 'deadLetterId')),
        reason: field(formData, 'reason'),
        overrideBrakes,
      });
      return { changed };
    },
    ['/dead-letters', '/holds'],
  );
}

export async function discardAction(_previous: Changed, formData: FormData) {
  return runAction(
    async (ctx) => {
      const { changed } = await discardDeadLetter(ctx, {
        deadLetterId: Number(field(formData, 'deadLetterId')),
        reason: field(formData, 'reason'),
      });
      return { changed };
    },
    ['/dead-letters', '/holds'],
  );
}

/** The preview the confirmation shows; nothing changes. */
export async function previewBulkRedriveAction(filter: DeadLetterFilter): Promise<
  ActionResult<
    Omit<BulkRedrivePreview, 'sample'> & {
      sample: { id: number; taskId: string; outcome: string; brakes: RedriveBrakeRule[] }[];
    }
  >
> {
  return runAction(async (ctx) => {
    const preview = await previewBulkRedrive(ctx, filter);
    // Only what the dialog shows crosses to the browser, not the payloads.
    return {
      ...preview,
      sample: preview.sample.slice(0, 10).map((item) => ({
        id: item.deadLetter.id,
        taskId: item.deadLetter.taskId,
        outcome: item.outcome,
        brakes: item.brakes,
      })),
    };
  });
}

/**
 * Records the run and works it after the response is sent, in this server
 * process; if the process dies, the sweep carries the run on.
 */
export async function startBulkRedriveAction(request: {
  requestId: string;
  filter: DeadLetterFilter;
  reason: string;
  ratePerSecond: number;
}): Promise<ActionResult<BulkRedrive>> {
  return runAction(
    async (ctx) => {
      const { bulkRedrive, created } = await startBulkRedrive(ctx, request);
      if (created) {
        after(() =>
          runBulkRedrive(ctx, bulkRedrive.id).catch((error: unknown) =>
            console.error(`Bulk redrive ${bulkRedrive.id} stopped: ${String(error)}`),
          ),
        );
      }
      return bulkRedrive;
    },
    ['/dead-letters'],
  );
}

export async function cancelBulkRedriveAction(bulkRedriveId: number): Promise<ActionResult<{ changed: boolean }>> {
  return runAction(async (ctx) => {
    const { changed } = await cancelBulkRedrive(ctx, { bulkRedriveId });
    return { changed };
  });
}
