import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { writeAudit } from '../core/audit/audit-log';
import { auditTrail } from '../core/audit/audit-trail';
import { authorize } from '../core/identity/authorization';
import { actorLabel, nowOf, type CoreContext } from '../core/kernel/context';
import { InvalidInputError, NotFoundError, StateConflictError } from '@holdfast/protocol/errors';
import { parseInput } from '@holdfast/protocol/validation';
import type { Executor } from '../db/client';
import { databaseErrorCode } from '../db/error-code';
import { alertChannels, alertDeliveries, type AlertChannel } from '../db/schema';
import { createAlertChannelInput, urlHint, type CreateAlertChannelInput } from './channel-input';
import { OutboundRefusedError, vetChannelUrl, type OutboundOptions } from './outbound-request';
import { createSigningSecret } from './signature';

/** A channel as the console and the audit log may show it: never its URL or its secret. */
export type AlertChannelSummary = Omit<AlertChannel, 'url' | 'signingSecret'>;

function summaryOf(channel: AlertChannel): AlertChannelSummary {
  const { url: _url, signingSecret: _secret, ...summary } = channel;
  return summary;
}

/** What an audit record keeps of a channel: its identity, the URL's hint (never the URL) and its routing. */
const channelSettings = (channel: AlertChannel) => ({
  id: channel.id,
  name: channel.name,
  kind: channel.kind,
  urlHint: channel.urlHint,
  team: channel.team,
  enabled: channel.enabled,
});
const channelAudit = auditTrail('alert_channel', (channel: AlertChannel) => channel.id, channelSettings);

const channelId = z
  .number({ error: 'must be a channel id' })
  .int('must be a channel id')
  .min(1, 'must be a channel id');

export const deleteAlertChannelInput = z.strictObject({ channelId, reason: z.string().trim().max(500).optional() });
export type DeleteAlertChannelInput = z.input<typeof deleteAlertChannelInput>;

export const setAlertChannelEnabledInput = z.strictObject({ channelId, enabled: z.boolean() });
export type SetAlertChannelEnabledInput = z.input<typeof setAlertChannelEnabledInput>;

export const sendTestAlertInput = z.strictObject({ channelId });
export type SendTestAlertInput = z.input<typeof sendTestAlertInput>;

export interface CreateAlertChannelResult {
  channel: AlertChannelSummary;
  /** The webhook's signing secret, returned this once (null for Slack, whose URL is its secret). */
  signingSecret: string | null;
}

const NAME_TAKEN = 'a channel with this name exists: choose another name or delete that channel first';

/** How long saving a channel waits for its host name to resolve. */
const SAVE_RESOLVE_TIMEOUT_MS = 5_000;

/**
 * Judges the URL's destination now, as every delivery will again: a channel
 * pointing inside (or at a name that does not resolve) is refused on its url
 * field, so an admin hears it at once rather than from a failing channel.
 */
async function assertDestinationAllowed(url: string, outbound: OutboundOptions | undefined): Promise<void> {
  let problem: string;
  try {
    await vetChannelUrl(new URL(url), outbound, AbortSignal.timeout(SAVE_RESOLVE_TIMEOUT_MS));
    return;
  } catch (error) {
    if (error instanceof OutboundRefusedError) problem = `must not point inside the network: ${error.message}`;
    else {
      const code = (error as { code?: unknown }).code;
      problem = `its host name does not resolve${typeof code === 'string' ? ` (${code})` : ''}`;
    }
  }
  throw new InvalidInputError(`Invalid input: url: ${problem}`, { url: [problem] });
}

/** A live (not deleted) channel, locked for the change; NOT_FOUND when there is none. */
async function lockLiveChannel(tx: Executor, id: number): Promise<AlertChannel> {
  const [channel] = await tx
    .select()
    .from(alertChannels)
    .where(and(eq(alertChannels.id, id), isNull(alertChannels.deletedAt)))
    .for('update');
  if (!channel) throw new NotFoundError(`No alert channel ${id} (it may have been deleted)`);
  return channel;
}

/**
 * Adds a channel alerts are delivered to; admins only, audit-logged in the
 * same transaction. A webhook gets a new signing secret, returned here once
 * and never shown again. The URL (which may hold a secret path) is stored but
 * never returned, logged or audited: only its hint is. Its destination must be
 * outside the network, or allowed by HOLDFAST_ALERT_ALLOWED_HOSTS.
 */
export async function createAlertChannel(
  ctx: CoreContext,
  input: CreateAlertChannelInput,
  /** `outbound`: the allow-list and resolver the URL is judged with (HOLDFAST_ALERT_ALLOWED_HOSTS and the system's by default). */
  options: { outbound?: OutboundOptions } = {},
): Promise<CreateAlertChannelResult> {
  const actor = authorize(ctx, 'alerts.manage');
  const request = parseInput(createAlertChannelInput, input);
  // Before the transaction: no transaction stays open across a DNS lookup.
  await assertDestinationAllowed(request.url, options.outbound);
  const signingSecret = request.kind === 'webhook' ? createSigningSecret() : null;
  const nameTaken = () => new InvalidInputError(`Invalid input: name: ${NAME_TAKEN}`, { name: [NAME_TAKEN] });
  try {
    return await ctx.db.transaction(async (tx) => {
      const [channel] = await tx
        .insert(alertChannels)
        .values({
          name: request.name,
          kind: request.kind,
          url: request.url,
          urlHint: urlHint(request.url),
          signingSecret,
          team: request.team || null,
          createdAt: nowOf(ctx),
          createdBy: actorLabel(actor),
        })
        .returning();
      if (!channel) throw new Error('createAlertChannel: insert returned no row');
      await channelAudit(tx, actor, 'alert_channel.create', { after: channel });
      return { channel: summaryOf(channel), signingSecret };
    });
  } catch (error) {
    // The live name is unique by index (alert_channels_live_name_key): a clash, even a concurrent one, lands here.
    if (databaseErrorCode(error) === '23505') throw nameTaken();
    throw error;
  }
}

/**
 * Deletes a channel (softly: its past deliveries keep their channel), and
 * marks its pending deliveries failed, "channel deleted", so the worker stops
 * trying them. Admins only, audit-logged in the same transaction. Deleting a
 * channel already deleted answers changed: false and writes nothing.
 */
export async function deleteAlertChannel(
  ctx: CoreContext,
  input: DeleteAlertChannelInput,
): Promise<{ changed: boolean; failedDeliveries: number }> {
  const actor = authorize(ctx, 'alerts.manage');
  const request = parseInput(deleteAlertChannelInput, input);
  const now = nowOf(ctx);
  return ctx.db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(alertChannels)
      .where(eq(alertChannels.id, request.channelId))
      .for('update');
    if (!existing) throw new NotFoundError(`No alert channel ${request.channelId}`);
    if (existing.deletedAt) return { changed: false, failedDeliveries: 0 };
    const [deleted] = await tx
      .update(alertChannels)
      .set({ deletedAt: now, enabled: false })
      .where(eq(alertChannels.id, existing.id))
      .returning();
    if (!deleted) throw new Error('deleteAlertChannel: update returned no row');
    const failed = await tx
      .update(alertDeliveries)
      .set({ status: 'failed', lastError: 'channel deleted' })
      .where(and(eq(alertDeliveries.channelId, existing.id), eq(alertDeliveries.status, 'pending')))
      .returning({ id: alertDeliveries.id });
    await writeAudit(tx, actor, {
      action: 'alert_channel.delete',
      targetType: 'alert_channel',
      targetId: String(existing.id),
      reason: request.reason,
      before: channelSettings(existing),
      after: { ...channelSettings(deleted), deleted: true, pendingDeliveriesFailed: failed.length },
    });
    return { changed: true, failedDeliveries: failed.length };
  });
}

/**
 * Switches a channel on or off: a disabled channel is sent nothing new.
 * Admins only, audit-logged; switching it to the state it has writes nothing.
 */
export async function setAlertChannelEnabled(
  ctx: CoreContext,
  input: SetAlertChannelEnabledInput,
): Promise<{ changed: boolean; channel: AlertChannelSummary }> {
  const actor = authorize(ctx, 'alerts.manage');
  const request = parseInput(setAlertChannelEnabledInput, input);
  return ctx.db.transaction(async (tx) => {
    const before = await lockLiveChannel(tx, request.channelId);
    if (before.enabled === request.enabled) return { changed: false, channel: summaryOf(before) };
    const [updated] = await tx
      .update(alertChannels)
      .set({ enabled: request.enabled })
      .where(eq(alertChannels.id, before.id))
      .returning();
    if (!updated) throw new Error('setAlertChannelEnabled: update returned no row');
    await channelAudit(tx, actor, request.enabled ? 'alert_channel.enable' : 'alert_channel.disable', {
      before,
      after: updated,
    });
    return { changed: true, channel: summaryOf(updated) };
  });
}

/**
 * Queues a test notification to a channel: one outbox row (event "test", no
 * alert instance) that the delivery worker sends like any other, with its
 * attempts shown in the history. Admins only, audit-logged. A disabled
 * channel is refused: the worker would not send to it.
 */
export async function sendTestAlert(
  ctx: CoreContext,
  input: SendTestAlertInput,
): Promise<{ deliveryId: number; eventId: string }> {
  const actor = authorize(ctx, 'alerts.manage');
  const request = parseInput(sendTestAlertInput, input);
  return ctx.db.transaction(async (tx) => {
    const channel = await lockLiveChannel(tx, request.channelId);
    if (!channel.enabled) throw new StateConflictError(`The channel "${channel.name}" is disabled: enable it first`);
    const [delivery] = await tx
      .insert(alertDeliveries)
      // created_at and next_attempt_at by the database's now(): the worker compares them with its now().
      .values({ instanceId: null, event: 'test', channelId: channel.id })
      .returning({ id: alertDeliveries.id, eventId: alertDeliveries.eventId });
    if (!delivery) throw new Error('sendTestAlert: insert returned no row');
    await writeAudit(tx, actor, {
      action: 'alert_channel.test',
      targetType: 'alert_channel',
      targetId: String(channel.id),
      before: null,
      after: { ...channelSettings(channel), deliveryId: delivery.id, eventId: delivery.eventId },
    });
    return { deliveryId: delivery.id, eventId: delivery.eventId };
  });
}
