'use server';

import { endRamp, resumePause, saveBreakerSettings, setPause } from '@holdfast/engine/core';
import { field, optionalNumberField, runAction, type ActionResult } from '@/lib/server/action';

/** The pages that show pauses: refreshed after each change. */
const PAUSE_PAGES = ['/pauses', '/', '/steps'];

export async function setPauseAction(
  _previous: ActionResult<{ paused: boolean; message?: string }> | undefined,
  formData: FormData,
) {
  return runAction(async (ctx) => {
    const scope = field(formData, 'scope');
    const common = { reason: field(formData, 'reason'), forMinutes: optionalNumberField(formData, 'forMinutes') };
    const target =
      scope === 'step'
        ? { scope, agent: field(formData, 'agent'), step: field(formData, 'step') }
        : scope === 'agent'
          ? { scope, agent: field(formData, 'agent') }
          : { scope, downstream: field(formData, 'downstream') };
    // The library validates the scope too: an unknown one is named, not read as a downstream.
    const outcome = await setPause(ctx, { ...target, ...common } as Parameters<typeof setPause>[1]);
    return outcome.paused ? { paused: true } : { paused: false, message: outcome.message };
  }, PAUSE_PAGES);
}

export async function resumePauseAction(
  _previous: ActionResult<{ resumed: boolean; message?: string }> | undefined,
  formData: FormData,
) {
  return runAction(async (ctx) => {
    const ramped = field(formData, 'ramp') === 'on';
    const outcome = await resumePause(ctx, {
      pauseId: Number(field(formData, 'pauseId')),
      reason: field(formData, 'reason'),
      ramp: ramped
        ? {
            startPerMinute: optionalNumberField(formData, 'startPerMinute') as number,
            overMinutes: optionalNumberField(formData, 'overMinutes') as number,
          }
        : undefined,
    });
    return outcome.resumed ? { resumed: true } : { resumed: false, message: outcome.message };
  }, PAUSE_PAGES);
}

export async function saveBreakerSettingsAction(_previous: ActionResult<null> | undefined, formData: FormData) {
  return runAction(async (ctx) => {
    await saveBreakerSettings(ctx, {
      windowSeconds: optionalNumberField(formData, 'windowSeconds') as number,
      failurePercent: optionalNumberField(formData, 'failurePercent') as number,
      minimumVolume: optionalNumberField(formData, 'minimumVolume') as number,
      coolDownSeconds: optionalNumberField(formData, 'coolDownSeconds') as number,
      probes: optionalNumberField(formData, 'probes') as number,
      reason: field(formData, 'reason'),
    });
    return null;
  }, PAUSE_PAGES);
}

/** Ends a resume's ramp now: the begins it held to a rate run unlimited again. */
export async function endRampAction(
  _previous: ActionResult<{ ended: boolean; message?: string }> | undefined,
  formData: FormData,
) {
  return runAction(async (ctx) => {
    const outcome = await endRamp(ctx, {
      pauseId: Number(field(formData, 'pauseId')),
      reason: field(formData, 'reason'),
    });
    return outcome.ended ? { ended: true } : { ended: false, message: outcome.message };
  }, PAUSE_PAGES);
}
