import Link from 'next/link';
import { Age } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { formatCount, formatUtc } from '@/lib/console/format';
import { errorsHref } from '@/lib/filters/errors';
import type { FiringAlert } from '@/lib/queries/attention';
import type { RisingGroup } from '@/lib/queries/rising-groups';
import { CardSection } from '@/components/ui/card-section';

/**
 * The on-call engineer's first look, at the top of the Overview: what is
 * firing (longest first, each linking to what explains it) and what changed
 * (the error groups rising most in the last hour, with when each rise
 * began). Read with the page; the
 * sidebar's counts keep polling.
 */
export function IncidentPanel({
  alerts,
  firingTotal,
  unattended,
  silenced,
  rising,
  now,
}: {
  alerts: FiringAlert[];
  firingTotal: number;
  /** Of the firing alerts, those nobody on call has acknowledged and no silence matches (listed first). */
  unattended: number;
  /** Of the firing alerts, those a silence in force matches (listed last). */
  silenced: number;
  rising: RisingGroup[];
  now: Date;
}) {
  const calm = firingTotal === 0 && rising.length === 0;
  return (
    <CardSection headingId="incident-heading" heading={calm ? 'Nothing firing' : 'Now'} testId="incident-panel">
      {calm ? (
        <p className="mt-1 text-[13px] text-muted">No alert is firing and no error group rose in the last hour.</p>
      ) : (
        <div className="mt-2 grid gap-4 md:grid-cols-2">
          <div>
            <h3 className="text-[12px] font-medium text-muted">
              {firingTotal === 0 ? 'No alert firing' : firingSummary(firingTotal, unattended, silenced)}
            </h3>
            <ul className="mt-1 grid gap-1 text-[13px]" data-testid="incident-alerts">
              {alerts.map((alert) => (
                <li key={alert.id} className="[overflow-wrap:anywhere]">
                  <Link href={alert.link} className="text-accent hover:underline">
                    <VisibleText text={alert.title} />
                  </Link>{' '}
                  {/* The title's figures are as they stood when it fired; the link shows them now. */}
                  <span className="text-[12px] text-muted">
                    firing for <Age since={alert.firedAt} now={now} /> · text as when it fired
                  </span>
                  {alert.acknowledgedBy ? (
                    <span className="block text-[12px] text-muted" data-testid="incident-acknowledged">
                      acknowledged by {alert.acknowledgedBy}
                      {alert.acknowledgedUntil ? ` until ${formatUtc(alert.acknowledgedUntil).slice(11)}` : ''}
                    </span>
                  ) : null}
                  {alert.silence ? (
                    <span className="block text-[12px] text-muted" data-testid="incident-silenced">
                      silenced by {alert.silence.createdBy} until {formatUtc(alert.silence.endsAt).slice(11)}:{' '}
                      <VisibleText text={alert.silence.reason} />
                    </span>
                  ) : null}
                </li>
              ))}
            </ul>
            {firingTotal > alerts.length ? (
              <Link href="/alerts?tab=history" className="mt-1 inline-block text-[12px] text-accent hover:underline">
                All {formatCount(firingTotal)} on Alerts →
              </Link>
            ) : null}
          </div>
          <div>
            <h3 className="text-[12px] font-medium text-muted">
              {rising.length === 0 ? 'No error group rising in the last hour' : 'Rising in the last hour'}
            </h3>
            <ul className="mt-1 grid gap-1.5 text-[13px]" data-testid="incident-rising">
              {rising.map((group) => (
                <li key={group.fingerprint} className="[overflow-wrap:anywhere]">
                  <Link
                    href={errorsHref({ window: '1h', filter: { agent: group.agent, step: group.step } })}
                    className="font-mono text-[12px] text-accent hover:underline"
                  >
                    <VisibleText text={`${group.agent}/${group.step}`} />
                  </Link>{' '}
                  <span className="font-mono text-[12px]">
                    <VisibleText text={group.pattern} />
                  </span>
                  <div className="text-[12px] text-muted">
                    {formatCount(group.failures)} failures,{' '}
                    {group.previousFailures === 0
                      ? 'none in the hours before'
                      : `${formatCount(group.previousFailures)} in the hours before`}
                    ; first seen <Age since={group.firstSeenAt} now={now} /> ago
                  </div>
                  {group.riseBeganAt ? (
                    <div className="text-[12px]" data-testid="rise-began">
                      Rising since {formatUtc(group.riseBeganAt).slice(11)} (
                      <Age since={group.riseBeganAt} now={now} /> ago)
                    </div>
                  ) : null}
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
    </CardSection>
  );
}

/** "5 alerts firing, 1 acknowledged, 2 silenced": how many there are, and how many already have someone or a silence. */
function firingSummary(total: number, unattended: number, silenced: number): string {
  const acknowledged = total - unattended - silenced;
  const parts = [`${formatCount(total)} alert${total === 1 ? '' : 's'} firing`];
  if (acknowledged > 0) parts.push(`${formatCount(acknowledged)} acknowledged`);
  if (silenced > 0) parts.push(`${formatCount(silenced)} silenced`);
  return parts.join(', ');
}
