import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { nowOf, type CoreContext } from '../core/kernel/context';
import { alertChannels, alertDeliveries, alertDeliveryAttempts, alertInstances, type AlertChannel } from '../db/schema';
import { getEnvironment, publicUrlOf } from '../env';
import { describeFailure, decideDelivery, type SendOutcome } from './delivery-policy';
import { slackBody, webhookBody, type AlertMessage } from './messages';
import { OutboundRefusedError, postVetted, type OutboundOptions } from './outbound-request';
import { SIGNATURE_HEADER, signPayload } from './signature';

/** A receiver gets this long to answer; then the try counts as a network error and is retried. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A claimed row is not due again for this long: longer than any try, so two deliverers never send it at once. */
export const DELIVERY_CLAIM_MS = 60_000;
export const EVENT_ID_HEADER = 'Holdfast-Event-Id';
const USER_AGENT = 'Holdfast-Alerts/1';

export interface DeliveryReport {
  delivered: number;
  retrying: number;
  failed: number;
}

type Claimed = typeof alertDeliveries.$inferSelect;

/**
 * Sends the outbox rows that are due. Rows are claimed by one UPDATE that
 * pushes their next_attempt_at past the claim window (over rows picked FOR
 * UPDATE SKIP LOCKED), so no transaction stays open across the HTTP call and
 * two deliverers never send one row at once; each outcome is written only if
 * the claim is still this deliverer's. A resolution waits for its firing to
 * leave the same channel, so a receiver never hears "resolved" first.
 */
export async function deliverDueAlerts(
  ctx: CoreContext,
  /** `outbound`: the allow-list and resolver to send with (HOLDFAST_ALERT_ALLOWED_HOSTS and the system's by default). */
  options: { now?: Date; outbound?: OutboundOptions; limit?: number; publicUrl?: string } = {},
): Promise<DeliveryReport> {
  const now = options.now ?? nowOf(ctx);
  const publicUrl = options.publicUrl ?? publicUrlOf(getEnvironment());
  const claimedUntil = new Date(now.getTime() + DELIVERY_CLAIM_MS);
  const nowSql = sql`${now.toISOString()}::timestamptz`;

  const claimed = await ctx.db.execute<{ id: number }>(sql`
    update alert_deliveries set next_attempt_at = ${claimedUntil.toISOString()}::timestamptz
    where id in (
      select id from alert_deliveries due
      where due.status = 'pending' and due.next_attempt_at <= ${nowSql}
        and not (due.event = 'resolved' and exists (
          select 1 from alert_deliveries fired
          where fired.instance_id = due.instance_id and fired.channel_id = due.channel_id
            and fired.event = 'fired' and fired.status = 'pending'))
      order by due.next_attempt_at, due.id
      limit ${options.limit ?? 25}
      for update skip locked)
    returning id`);
  if (claimed.length === 0) return { delivered: 0, retrying: 0, failed: 0 };

  const ids = claimed.map((row) => Number(row.id));
  const rows = await ctx.db.select().from(alertDeliveries).where(inArray(alertDeliveries.id, ids));
  const channels = await ctx.db
    .select()
    .from(alertChannels)
    .where(
      inArray(
        alertChannels.id,
        rows.map((row) => row.channelId),
      ),
    );
  const instanceIds = rows.map((row) => row.instanceId).filter((id) => id !== null);
  const instances =
    instanceIds.length === 0
      ? []
      : await ctx.db.select().from(alertInstances).where(inArray(alertInstances.id, instanceIds));

  const outcomes = await Promise.all(
    rows.map(async (row) => {
      const channel = channels.find((each) => each.id === row.channelId)!;
      const instance = instances.find((each) => each.id === row.instanceId);
      if (channel.deletedAt || !channel.enabled) {
        await finish(ctx, row, claimedUntil, false, {
          status: 'failed',
          lastError: `not sent: the channel was ${channel.deletedAt ? 'deleted' : 'disabled'}`,
        });
        return 'failed' as const;
      }
      const message = messageOf(row, channel, instance);
      const outcome = await sendOnce(options.outbound ?? {}, channel, message, publicUrl, now);
      return settle(ctx, row, channel, claimedUntil, now, outcome);
    }),
  );
  return {
    delivered: outcomes.filter((outcome) => outcome === 'delivered').length,
    retrying: outcomes.filter((outcome) => outcome === 'retrying').length,
    failed: outcomes.filter((outcome) => outcome === 'failed').length,
  };
}

function messageOf(
  row: Claimed,
  channel: AlertChannel,
  instance: typeof alertInstances.$inferSelect | undefined,
): AlertMessage {
  if (!instance) {
    return {
      eventId: row.eventId,
      event: row.event,
      kind: null,
      identity: null,
      title: 'Test notification from Holdfast',
      detail: `A test sent from the console to the channel "${channel.name}": alerts reach this receiver.`,
      link: '/alerts',
      team: channel.team,
      count: 1,
      firedAt: row.createdAt,
      resolvedAt: null,
    };
  }
  return {
    eventId: row.eventId,
    event: row.event,
    kind: instance.kind,
    identity: instance.identity,
    title: instance.title,
    detail: instance.detail,
    link: instance.link,
    team: instance.team,
    count: instance.members?.length ?? 1,
    firedAt: instance.firedAt,
    // A firing's body says nothing of a later resolution: every retry of one event carries the same body.
    resolvedAt: row.event === 'resolved' ? instance.resolvedAt : null,
  };
}

async function sendOnce(
  outbound: OutboundOptions,
  channel: AlertChannel,
  message: AlertMessage,
  publicUrl: string,
  now: Date,
): Promise<SendOutcome> {
  const body = JSON.stringify(
    channel.kind === 'slack' ? slackBody(message, publicUrl) : webhookBody(message, publicUrl),
  );
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    [EVENT_ID_HEADER]: message.eventId,
  };
  if (channel.kind === 'webhook' && channel.signingSecret) {
    headers[SIGNATURE_HEADER] = signPayload(channel.signingSecret, body, now);
  }
  const started = performance.now();
  try {
    // Checked again at every try, on the address it connects to: the check at save is no promise about today's DNS.
    // A redirect is answered as it is, not followed: the URL an admin saved is the only one that gets the body.
    const response = await postVetted(
      channel.url,
      { headers, body, signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) },
      outbound,
    );
    return { ...response, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    if (error instanceof OutboundRefusedError) return { refused: error.message, durationMs };
    return { error: describeFailure(error, channel.url), durationMs };
  }
}

type Settled = 'delivered' | 'retrying' | 'failed';

/** Records the try, then the row's new state by the answer, and the channel's failing mark with it. */
async function settle(
  ctx: CoreContext,
  row: Claimed,
  channel: AlertChannel,
  claimedUntil: Date,
  now: Date,
  outcome: SendOutcome,
): Promise<Settled> {
  await ctx.db.insert(alertDeliveryAttempts).values({
    deliveryId: row.id,
    attemptedAt: now,
    statusCode: 'statusCode' in outcome ? outcome.statusCode : null,
    error: 'error' in outcome ? outcome.error : 'refused' in outcome ? outcome.refused : null,
    refusedByPolicy: 'refused' in outcome,
    durationMs: outcome.durationMs,
  });
  const decision = decideDelivery(outcome, row.attempts + 1, now.getTime() - row.createdAt.getTime(), now);
  if (decision.kind === 'delivered') {
    const kept = await finish(ctx, row, claimedUntil, true, { status: 'delivered', deliveredAt: now, lastError: null });
    if (kept) {
      await ctx.db
        .update(alertChannels)
        .set({ failingSince: null, failingReason: null })
        .where(and(eq(alertChannels.id, channel.id), isNotNull(alertChannels.failingSince)));
    }
    return 'delivered';
  }
  if (decision.kind === 'retry') {
    await finish(ctx, row, claimedUntil, true, {
      lastError: decision.reason,
      nextAttemptAt: new Date(now.getTime() + decision.delayMs),
    });
    return 'retrying';
  }
  const kept = await finish(ctx, row, claimedUntil, true, { status: 'failed', lastError: decision.reason });
  if (kept) {
    await ctx.db
      .update(alertChannels)
      .set({
        failingSince: sql`coalesce(${alertChannels.failingSince}, ${now.toISOString()}::timestamptz)`,
        failingReason: decision.reason,
      })
      .where(eq(alertChannels.id, channel.id));
  }
  return 'failed';
}

/** Writes a claimed row's outcome if the claim is still ours (its next_attempt_at is what the claim set). */
async function finish(
  ctx: CoreContext,
  row: Claimed,
  claimedUntil: Date,
  attempted: boolean,
  change: Partial<Pick<Claimed, 'status' | 'lastError' | 'nextAttemptAt' | 'deliveredAt'>>,
): Promise<boolean> {
  const updated = await ctx.db
    .update(alertDeliveries)
    .set({ ...change, attempts: sql`${alertDeliveries.attempts} + ${attempted ? 1 : 0}` })
    .where(
      and(
        eq(alertDeliveries.id, row.id),
        eq(alertDeliveries.status, 'pending'),
        eq(alertDeliveries.nextAttemptAt, claimedUntil),
      ),
    )
    .returning({ id: alertDeliveries.id });
  return updated.length > 0;
}
