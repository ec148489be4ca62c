'use server';

import { createAlertChannel, deleteAlertChannel, sendTestAlert, setAlertChannelEnabled } from '@holdfast/engine/alerts';
import { acknowledgeAlert } from '@holdfast/engine/alerts';
import { saveAlertRule } from '@holdfast/engine/alerts';
import { createSilence, endSilence } from '@holdfast/engine/alerts';
import type { AlertChannelKind, AlertKind } from '@holdfast/protocol/enums';
import { type ActionResult, field, numberFrom, optionalNumberField, runAction } from '@/lib/server/action';

const SHOWN_ON = ['/alerts'];

export type SaveRuleResult = ActionResult<{ changed: boolean }>;

/** Saves one rule: on or off and its thresholds (fields named `threshold.<name>`); admins only, the library checks. */
export async function saveRuleAction(
  _previous: SaveRuleResult | undefined,
  formData: FormData,
): Promise<SaveRuleResult> {
  const thresholds: Record<string, number> = {};
  for (const [name, value] of formData.entries()) {
    if (!name.startsWith('threshold.') || typeof value !== 'string') continue;
    const number = numberFrom(value);
    // A blank or unreadable number stays in as NaN, so the library names the field rather than dropping it.
    thresholds[name.slice('threshold.'.length)] = number === undefined ? Number.NaN : number;
  }
  return runAction(async (ctx) => {
    const { changed } = await saveAlertRule(ctx, {
      kind: field(formData, 'kind') as AlertKind,
      enabled: formData.get('enabled') === 'on',
      thresholds,
      reason: field(formData, 'reason').trim() || undefined,
    });
    return { changed };
  }, SHOWN_ON);
}

export interface ChannelFormValues {
  name: string;
  kind: string;
  url: string;
  team: string;
}

export interface CreateChannelState {
  result: ActionResult<{ name: string; kind: AlertChannelKind; signingSecret: string | null }>;
  /** What was typed, so a refused form comes back as it was (the URL too: it never left this browser's form). */
  values: ChannelFormValues;
}

/** Adds a channel; a webhook's signing secret comes back this once. */
export async function createChannelAction(
  _previous: CreateChannelState | undefined,
  formData: FormData,
): Promise<CreateChannelState> {
  const values: ChannelFormValues = {
    name: field(formData, 'name'),
    kind: field(formData, 'kind'),
    url: field(formData, 'url'),
    team: field(formData, 'team'),
  };
  const result = await runAction(async (ctx) => {
    const { channel, signingSecret } = await createAlertChannel(ctx, {
      name: values.name,
      kind: values.kind as AlertChannelKind,
      url: values.url,
      team: values.team.trim() === '' ? undefined : values.team,
    });
    return { name: channel.name, kind: channel.kind, signingSecret };
  }, SHOWN_ON);
  return { result, values: result.ok ? { name: '', kind: values.kind, url: '', team: '' } : values };
}

export async function setChannelEnabledAction(channelId: number, enabled: boolean) {
  return runAction(async (ctx) => {
    const { changed } = await setAlertChannelEnabled(ctx, { channelId, enabled });
    return { changed };
  }, SHOWN_ON);
}

export async function sendTestAction(channelId: number) {
  return runAction((ctx) => sendTestAlert(ctx, { channelId }), SHOWN_ON);
}

export async function deleteChannelAction(channelId: number) {
  return runAction((ctx) => deleteAlertChannel(ctx, { channelId }), SHOWN_ON);
}

/** Takes a firing alert for a while (`forMinutes`; blank: until it resolves), with a note; responders and admins. */
export async function acknowledgeAlertAction(
  _previous: ActionResult<{ acknowledged: boolean }> | undefined,
  formData: FormData,
): Promise<ActionResult<{ acknowledged: boolean }>> {
  return runAction(
    async (ctx) => {
      await acknowledgeAlert(ctx, {
        alertId: Number(field(formData, 'alertId')),
        forMinutes: optionalNumberField(formData, 'forMinutes'),
        note: field(formData, 'note'),
      });
      return { acknowledged: true };
    },
    ['/alerts', '/'],
  );
}

export interface SilenceFormValues {
  kind: string;
  identityPattern: string;
  team: string;
  duration: string;
  endsAt: string;
  reason: string;
}

export interface CreateSilenceState {
  /** `created` false: the same silence was in force already (a double submit), and it is the one answered. */
  result: ActionResult<{ silenceId: number; matchingFiring: number; created: boolean }>;
  /** What was typed, so a refused form comes back as it was. */
  values: SilenceFormValues;
}

/**
 * Silences a rule's alerts (blank: any rule) matching a subject pattern and a team, for a duration in minutes or
 * until `endsAt` (an ISO time the browser converted from the person's local time); responders and admins.
 */
export async function createSilenceAction(
  _previous: CreateSilenceState | undefined,
  formData: FormData,
): Promise<CreateSilenceState> {
  const values: SilenceFormValues = {
    kind: field(formData, 'kind'),
    identityPattern: field(formData, 'identityPattern'),
    team: field(formData, 'team'),
    duration: field(formData, 'duration'),
    endsAt: field(formData, 'endsAt'),
    reason: field(formData, 'reason'),
  };
  const blankToAbsent = (text: string) => (text.trim() === '' ? undefined : text);
  const custom = values.duration === 'custom';
  const result = await runAction(
    async (ctx) => {
      const { silence, matchingFiring, created } = await createSilence(ctx, {
        kind: blankToAbsent(values.kind) as AlertKind | undefined,
        identityPattern: blankToAbsent(values.identityPattern),
        team: blankToAbsent(values.team),
        forMinutes: custom ? undefined : numberFrom(values.duration),
        // A custom end left blank is named as such, not taken for "no end".
        endsAt: custom ? (blankToAbsent(values.endsAt) ?? 'missing') : undefined,
        reason: values.reason,
      });
      return { silenceId: silence.id, matchingFiring, created };
    },
    ['/alerts', '/'],
  );
  return { result, values: result.ok ? { ...values, identityPattern: '', team: '', reason: '' } : values };
}

/** Ends a silence before its time; ending one already over changes nothing. Responders and admins. */
export async function endSilenceAction(silenceId: number) {
  return runAction(
    async (ctx) => {
      const { changed } = await endSilence(ctx, { silenceId });
      return { changed };
    },
    ['/alerts', '/'],
  );
}
