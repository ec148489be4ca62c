import { EmptyState } from '@/components/ui/empty-state';
import { LongText } from '@/components/ui/long-text';
import { ActionsHeaderCell, Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import type { AlertChannelRow } from '@/lib/queries/alerts';
import { stacked } from '@/components/ui/stacked-rows';
import { deliveryOutcomeLabels } from './alert-labels';
import { ChannelActions } from './channel-actions';
import { DeliveryStatusBadge } from './delivery-status';

const kindLabel = { webhook: 'Webhook', slack: 'Slack' } as const;

/** The channel's state: failing (with why) beats disabled beats enabled. */
function ChannelStatus({ channel }: { channel: AlertChannelRow }) {
  if (channel.failingSince) {
    return (
      <div className="text-danger" data-testid="channel-status">
        <span className="font-medium">Failing</span> since <Moment value={channel.failingSince} />
        {channel.failingReason ? (
          <div className="text-[12px]">
            <LongText text={`(${channel.failingReason})`} lines={2} />
          </div>
        ) : null}
        {channel.enabled ? null : <div className="text-[12px] text-muted">disabled</div>}
      </div>
    );
  }
  return (
    <span className={channel.enabled ? 'text-ok' : 'text-muted'} data-testid="channel-status">
      {channel.enabled ? 'Enabled' : 'Disabled'}
    </span>
  );
}

/** Live channels: where alerts go, routed by team; admins also test, switch and delete them. */
export function ChannelsTable({
  channels,
  manage,
  headingId,
}: {
  channels: AlertChannelRow[];
  manage: boolean;
  /** The list's heading, focused when a deleted channel takes its buttons away. */
  headingId: string;
}) {
  if (channels.length === 0) {
    return (
      <EmptyState title="No channels yet" testId="channels-empty">
        Alerts fire and show under History, but nobody is told.{' '}
        {manage
          ? 'Add a webhook or a Slack incoming webhook above, then send it a test.'
          : 'Ask an admin to add a webhook or a Slack channel.'}
      </EmptyState>
    );
  }
  return (
    <Table data-testid="channels-table" className={stacked.table}>
      <caption className="sr-only">Alert channels by name</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>Name</HeaderCell>
          <HeaderCell>Kind</HeaderCell>
          <HeaderCell title="Only the scheme and host: the path may be the secret">Destination</HeaderCell>
          <HeaderCell>Team</HeaderCell>
          <HeaderCell>Status</HeaderCell>
          <HeaderCell>Last delivery</HeaderCell>
          {manage ? <ActionsHeaderCell /> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {channels.map((channel) => (
          <tr key={channel.id} className={`align-top ${stacked.row}`} data-testid={`channel-row-${channel.name}`}>
            <Cell
              className={`min-w-36 max-w-56 font-medium [overflow-wrap:anywhere] ${stacked.cell}`}
              data-label="Name"
            >
              {channel.name}
            </Cell>
            <Cell className={stacked.cell} data-label="Kind">
              {kindLabel[channel.kind]}
            </Cell>
            <Cell
              className={`whitespace-nowrap font-mono text-[12px] max-md:whitespace-normal max-md:[overflow-wrap:anywhere] ${stacked.cell}`}
              data-label="Destination"
            >
              {channel.urlHint}
            </Cell>
            <Cell className={`text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Team">
              {channel.team ?? <span className="italic text-muted">every alert</span>}
            </Cell>
            <Cell className={`min-w-32 max-w-72 ${stacked.cell}`} data-label="Status">
              <ChannelStatus channel={channel} />
            </Cell>
            <Cell className={`text-[12px] ${stacked.cell}`} data-label="Last delivery">
              {channel.lastDelivery ? (
                <span>
                  <DeliveryStatusBadge status={channel.lastDelivery.status} />{' '}
                  <span className="text-muted">
                    {channel.lastDelivery.event} · <Moment value={channel.lastDelivery.createdAt} />
                    {channel.lastDelivery.outcome && channel.lastDelivery.outcome !== 'delivered'
                      ? ` · ${deliveryOutcomeLabels[channel.lastDelivery.outcome]}`
                      : null}
                  </span>
                </span>
              ) : (
                <span className="text-muted">none yet</span>
              )}
            </Cell>
            {manage ? (
              <Cell className={`min-w-48 ${stacked.controls}`}>
                <ChannelActions id={channel.id} name={channel.name} enabled={channel.enabled} headingId={headingId} />
              </Cell>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
