'use server';

import { resumePause, saveBreakerSettings, setPause } from '@/lib/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

/** The pages that show pauses: refreshed after each change. */
const PAUSE_PAGES = ['/pauses', '/', '/steps'];

/** A number field left blank is absent (the library then names it if it is required), not 0. */
function optionalNumber(formData: FormData, name: string): number | undefined {
  const text = field(formData, name).trim();
  return text === '' ? undefined : Number(text);
}

export async function setPauseAction(
  _previous: ActionResult<{ paused: boolean; message?: string }> | undefined,
  formData: FormData,
) {
  return runAction(async (ctx) => {
    const scope = field(formData, 'scope');
    const common = { reason: field(formData, 'reason'), forMinutes: optionalNumber(formData, 'forMinutes') };
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
            startPerMinute: optionalNumber(formData, 'startPerMinute') as number,
            overMinutes: optionalNumber(formData, 'overMinutes') as number,
          }
        : undefined,
    });
    return outcome.resumed ? { resumed: true } : { resumed: false, message: outcome.message };
  }, PAUSE_PAGES);
}

export async function saveBreakerSettingsAction(_previous: ActionResult<null> | undefined, formData: FormData) {
  return runAction(async (ctx) => {
    await saveBreakerSettings(ctx, {
      windowSeconds: optionalNumber(formData, 'windowSeconds') as number,
      failurePercent: optionalNumber(formData, 'failurePercent') as number,
      minimumVolume: optionalNumber(formData, 'minimumVolume') as number,
      coolDownSeconds: optionalNumber(formData, 'coolDownSeconds') as number,
      probes: optionalNumber(formData, 'probes') as number,
      reason: field(formData, 'reason'),
    });
    return null;
  }, PAUSE_PAGES);
}
