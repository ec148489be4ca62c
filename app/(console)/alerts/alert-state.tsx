import Link from 'next/link';
import { LongText } from '@/components/ui/long-text';
import { Age, Moment } from '@/components/ui/time';
import { acknowledgedNow } from '@holdfast/engine/alerts';
import { quietTimeFor } from '@holdfast/engine/alerts';
import { formatCount } from '@/lib/console/format';
import type { AlertSilence } from '@holdfast/engine/db/schema';
import type { AlertHistoryEntry } from '@/lib/queries/alerts';
import { AcknowledgeForm } from './acknowledge-form';

/** "silenced by person:rex until 14:00: deploying" (the history's and the Overview's wording). */
function SilencedBy({ silence, testId }: { silence: AlertSilence; testId: string }) {
  return (
    <div className="mt-0.5 [overflow-wrap:anywhere]" data-testid={testId}>
      silenced by {silence.createdBy} until <Moment value={silence.endedAt ?? silence.endsAt} />:{' '}
      <LongText text={silence.reason} lines={2} />
    </div>
  );
}

/** Where "Silence like this…" leads: the Silences tab with this alert's rule and subject filled in. */
const silenceLikeHref = (alert: AlertHistoryEntry) =>
  `/alerts?${new URLSearchParams({ tab: 'silences', kind: alert.kind, subject: alert.identity, ...(alert.team ? { team: alert.team } : {}) })}`;

/**
 * An alert's life in the history: when it fired, how often its condition came back while it was open, whether it
 * is clearing (the quiet time before it resolves), who has it, which silence holds it, and the actions on it.
 */
export function AlertState({
  alert,
  now,
  mayAcknowledge,
  maySilence,
}: {
  alert: AlertHistoryEntry;
  now: Date;
  mayAcknowledge: boolean;
  maySilence: boolean;
}) {
  const firing = alert.status === 'firing';
  return (
    <div>
      <div className="whitespace-nowrap">
        <Moment value={alert.firedAt} />
      </div>
      {alert.fireCount > 1 ? (
        <div data-testid="alert-repeats">
          fired {formatCount(alert.fireCount)} times (cleared and came back); last seen{' '}
          <Moment value={alert.lastSeenAt} />
        </div>
      ) : null}
      {!firing ? (
        <div className="whitespace-nowrap text-muted">
          resolved <Moment value={alert.resolvedAt} />
        </div>
      ) : alert.clearedAt ? (
        <div className="text-warn" data-testid="alert-clearing">
          clear since <Moment value={alert.clearedAt} />; resolves at{' '}
          <Moment value={new Date(alert.clearedAt.getTime() + quietTimeFor(alert.kind))} /> unless it comes back
        </div>
      ) : (
        <div className="font-medium text-danger">
          firing for <Age since={alert.firedAt} now={now} />
        </div>
      )}
      {firing && acknowledgedNow(alert, now) ? (
        <div className="mt-0.5 [overflow-wrap:anywhere]" data-testid="acknowledged">
          acknowledged by {alert.acknowledgedBy}{' '}
          {alert.acknowledgedUntil ? (
            <>
              until <Moment value={alert.acknowledgedUntil} />
            </>
          ) : (
            'until it resolves'
          )}
          : <LongText text={alert.acknowledgementNote ?? ''} lines={2} />
        </div>
      ) : null}
      {firing && alert.silenceNow ? <SilencedBy silence={alert.silenceNow} testId="silenced" /> : null}
      {!firing && alert.silenceAtFiring ? (
        <div className="mt-0.5 text-muted" data-testid="silenced-at-firing">
          {alert.notificationHeld ? 'not sent: ' : 'sent after its silence ended; '}
          <SilencedBy silence={alert.silenceAtFiring} testId="silenced-at-firing-by" />
        </div>
      ) : null}
      {firing && mayAcknowledge ? <AcknowledgeForm alertId={alert.id} title={alert.title} /> : null}
      {firing && maySilence && !alert.silenceNow ? (
        <Link
          href={silenceLikeHref(alert)}
          className="mt-1 inline-block text-accent hover:underline"
          data-testid="silence-like-this"
          aria-label={`Silence alerts like this: ${alert.title}`}
        >
          Silence like this…
        </Link>
      ) : null}
    </div>
  );
}
