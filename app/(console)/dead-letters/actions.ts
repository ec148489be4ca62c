'use server';

import { after } from 'next/server';
import {
  cancelBulkRedrive,
  discardDeadLetter,
  discardErrorGroup,
  previewBulkRedrive,
  redriveDeadLetter,
  runBulkRedrive,
  startBulkRedrive,
  type BulkRedrivePreview,
  type DeadLetterFilter,
  type RedriveBrakeRule,
} from '@holdfast/engine/core';
import { HoldfastError, InvalidInputError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import type { BulkRedrive } from '@holdfast/engine/db/schema';
import { field, runAction, type ActionResult } from '@/lib/server/action';
import { describeForLog } from '@/lib/server/log-error';
import { selectionInput, type SelectionInput, type SelectionItemResult } from './selection-input';

/**
 * The pages that list dead letters or their holds. (Any revalidation also
 * re-renders the page the action came from, so a detail page refreshes too.)
 */
const SHOWING_DEAD_LETTERS = ['/dead-letters', '/holds'];

type Changed = ActionResult<{ changed: boolean }> | undefined;

export async function redriveAction(_previous: Changed, formData: FormData) {
  return redrive(formData, false);
}

/** An admin's redrive past the redrive brakes; the audit record names the brakes overridden. */
export async function redriveOverridingBrakesAction(_previous: Changed, formData: FormData) {
  return redrive(formData, true);
}

async function redrive(formData: FormData, overrideBrakes: boolean) {
  return runAction(async (ctx) => {
    const { changed } = await redriveDeadLetter(ctx, {
      deadLetterId: Number(field(formData, 'deadLetterId')),
      reason: field(formData, 'reason'),
      overrideBrakes,
    });
    return { changed };
  }, SHOWING_DEAD_LETTERS);
}

/**
 * A redrive with the payload a person edited (JSON text from the form). New
 * content runs as a new task; the same content is a plain redrive. Brakes
 * apply unless an admin ticked the override.
 */
export async function redriveEditedAction(
  formData: FormData,
): Promise<ActionResult<{ changed: boolean; taskId: string; edited: boolean }>> {
  return runAction(async (ctx) => {
    const payload = parseJsonField(field(formData, 'payload'));
    const { changed, redrive } = await redriveDeadLetter(ctx, {
      deadLetterId: Number(field(formData, 'deadLetterId')),
      reason: field(formData, 'reason'),
      overrideBrakes: field(formData, 'overrideBrakes') === 'on',
      payload,
    });
    return { changed, taskId: redrive.taskId, edited: redrive.payloadEdited };
  }, SHOWING_DEAD_LETTERS);
}

/** JSON text from a form, or the field's error (the library never sees text that is not JSON). */
function parseJsonField(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const why = error instanceof SyntaxError ? error.message : 'it cannot be read';
    throw new InvalidInputError(`The payload is not valid JSON: ${why}`, { payload: [`is not valid JSON: ${why}`] });
  }
}

export async function discardAction(_previous: Changed, formData: FormData) {
  return runAction(async (ctx) => {
    const { changed } = await discardDeadLetter(ctx, {
      deadLetterId: Number(field(formData, 'deadLetterId')),
      reason: field(formData, 'reason'),
    });
    return { changed };
  }, SHOWING_DEAD_LETTERS);
}

/** Discards every pending dead letter of one error group, all or nothing, if it still holds the count confirmed. */
export async function discardErrorGroupAction(input: {
  group: string;
  reason: string;
  expectedCount: number;
}): Promise<ActionResult<{ discarded: number }>> {
  return runAction((ctx) => discardErrorGroup(ctx, input), SHOWING_DEAD_LETTERS);
}

/**
 * Redrives or discards exactly the ticked dead letters, one at a time through
 * the same library call as a single row (each idempotent, authorized, audited
 * in its own transaction), and says what became of each: one refused item
 * (braked, already discarded) does not stop the others.
 */
export async function actOnSelectionAction(
  act: 'redrive' | 'discard',
  input: SelectionInput,
): Promise<ActionResult<SelectionItemResult[]>> {
  return runAction(async (ctx) => {
    const { deadLetterIds, reason } = parseInput(selectionInput, input);
    const results: SelectionItemResult[] = [];
    for (const deadLetterId of new Set(deadLetterIds)) {
      try {
        const { changed } =
          act === 'redrive'
            ? await redriveDeadLetter(ctx, { deadLetterId, reason })
            : await discardDeadLetter(ctx, { deadLetterId, reason });
        results.push({ deadLetterId, outcome: changed ? 'done' : 'already_done' });
      } catch (error) {
        // Not allowed at all is the same for every item: say it once, as any action does.
        if (!(error instanceof HoldfastError) || error.code === 'FORBIDDEN' || error.code === 'UNAUTHENTICATED')
          throw error;
        results.push({ deadLetterId, outcome: 'refused', message: error.message });
      }
    }
    return results;
  }, SHOWING_DEAD_LETTERS);
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
            console.error(`Bulk redrive ${bulkRedrive.id} stopped: ${describeForLog(error)}`),
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
