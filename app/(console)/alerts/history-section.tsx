import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';
import { LongText } from '@/components/ui/long-text';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { runbookPath } from '@holdfast/engine/alerts';
import { formatCount } from '@/lib/console/format';
import type { AlertHistory, DeliveryRow } from '@/lib/queries/alerts';
import { alertKindLabels, deliveryOutcomeLabels } from './alert-labels';
import { stacked } from '@/components/ui/stacked-rows';
import { DeliveryStatusBadge } from './delivery-status';
import { AlertState } from './alert-state';
import { OwnerName } from '@/components/console/owner-name';
import type { StepOwnerView } from '@/lib/queries/step-owners';

/** Only a path inside the console is followed as a link (never another site). */
const consolePath = (link: string) => link.startsWith('/') && !link.startsWith('//');

/**
 * One notification: channel, event, status, tries, the last outcome, and each
 * try behind a disclosure. The error texts, status codes and durations are in
 * the rows for admins only (the read model leaves them out for anyone else).
 */
function Delivery({ delivery }: { delivery: DeliveryRow }) {
  return (
    <li className="min-w-0 py-1" data-testid={`delivery-${delivery.id}`}>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
        <DeliveryStatusBadge status={delivery.status} />
        <span className="font-medium [overflow-wrap:anywhere]">{delivery.channelName}</span>
        {delivery.channelDeleted ? <span className="text-[11px] text-muted">(deleted)</span> : null}
        <span className="text-muted">
          {delivery.event} · {formatCount(delivery.attempts)} {delivery.attempts === 1 ? 'try' : 'tries'}
          {delivery.deliveredAt ? (
            <>
              {' · delivered '}
              <Moment value={delivery.deliveredAt} precision="second" />
            </>
          ) : null}
        </span>
      </div>
      {delivery.outcome && delivery.status !== 'delivered' ? (
        <div className="mt-0.5 text-[12px] text-danger" data-testid="delivery-outcome">
          last try: {deliveryOutcomeLabels[delivery.outcome]}
        </div>
      ) : null}
      {delivery.lastError && delivery.status !== 'delivered' ? (
        <div className="mt-0.5 text-[12px] text-danger">
          <LongText text={delivery.lastError} lines={2} testId="delivery-error" />
        </div>
      ) : null}
      {delivery.attemptLog.length > 0 ? (
        <details className="mt-0.5 text-[12px]">
          <summary className="cursor-pointer text-accent">
            {delivery.attemptLog.length === 1 ? 'The try' : `The last ${delivery.attemptLog.length} tries`}
          </summary>
          <ol className="mt-1 flex flex-col gap-1 border-l border-line pl-2">
            {delivery.attemptLog.map((attempt) => (
              <li key={attempt.id} className="min-w-0">
                <span className="whitespace-nowrap">
                  <Moment value={attempt.attemptedAt} precision="second" />
                </span>
                {' · '}
                <span data-testid="attempt-outcome">{deliveryOutcomeLabels[attempt.outcome]}</span>
                {attempt.statusCode === null ? null : ` · HTTP ${attempt.statusCode}`}
                {attempt.durationMs === null ? null : ` · ${formatCount(attempt.durationMs)} ms`}
                {attempt.error ? (
                  <div className="text-muted">
                    <LongText text={attempt.error} lines={2} />
                  </div>
                ) : null}
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </li>
  );
}

/**
 * Who answers for an alert: the owner of the step it is about, and the team whose channels it went to (a hold's
 * owner team, or the step owner's), or every channel when none.
 */
function AlertOwner({ owner, team }: { owner: StepOwnerView | undefined; team: string | null }) {
  return (
    <>
      {owner ? <OwnerName owner={owner} testId="alert-owner" /> : null}
      <div className="text-muted" data-testid="alert-team">
        {team === null ? 'to every channel without a team' : `to team ${team}`}
      </div>
    </>
  );
}

/** What was sent for each alert, newest first, and the tests sent from this page. */
export function HistorySection({
  history,
  owners,
  moreHref,
  now,
  mayAcknowledge = false,
  maySilence = false,
}: {
  history: AlertHistory;
  /** The owner of the step each alert is about (lib/queries/alert-owners.ts), keyed by the alert's id. */
  owners: Map<number, StepOwnerView>;
  moreHref?: string;
  /** Whether the person may acknowledge firing alerts (responders and admins). */
  mayAcknowledge?: boolean;
  /** Whether the person may silence alerts (responders and admins). */
  maySilence?: boolean;
  /** The moment the page was read, for how long a firing alert has fired. */
  now: Date;
}) {
  const { instances, totalInstances, tests, totalTests } = history;
  return (
    <section aria-labelledby="history-title" className="flex flex-col gap-5">
      <div>
        <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="history-title" className="text-[14px] font-medium">
            Firing first (those nobody has taken before the acknowledged), then the newest resolved
          </h2>
          <p className="text-[12px] text-muted" data-testid="history-count">
            Showing {formatCount(instances.length)} of {formatCount(totalInstances)}
            {moreHref && instances.length < totalInstances ? (
              <>
                {' · '}
                <Link href={moreHref} className="text-accent hover:underline">
                  show more
                </Link>
              </>
            ) : null}
          </p>
        </div>
        {instances.length === 0 ? (
          <EmptyState title="No alerts yet" testId="history-empty">
            When a rule&apos;s condition holds (a hold opens, dead letters pile up, a lock goes stale), the alert sweep
            fires an alert here and notifies the channels. Check the thresholds under Rules, and add a channel so
            someone hears about it.
          </EmptyState>
        ) : (
          <Table data-testid="history-table" className={stacked.table}>
            <caption className="sr-only">Alert instances, newest first, with their notifications</caption>
            <thead className={stacked.head}>
              <tr>
                <HeaderCell>Alert</HeaderCell>
                <HeaderCell>Fired / resolved</HeaderCell>
                <HeaderCell>Owner</HeaderCell>
                <HeaderCell>Notifications</HeaderCell>
              </tr>
            </thead>
            <tbody className={stacked.body}>
              {instances.map((instance) => (
                <tr
                  key={instance.id}
                  className={`align-top ${stacked.row}`}
                  data-testid={`alert-instance-${instance.id}`}
                >
                  <Cell className={`min-w-56 max-w-96 ${stacked.controls}`}>
                    <div className="font-medium [overflow-wrap:anywhere]">{instance.title}</div>
                    <div className="text-[12px] text-muted [overflow-wrap:anywhere]">
                      {alertKindLabels[instance.kind]?.title ?? instance.kind}
                      {' · '}
                      <span className="font-mono" data-testid="alert-subject">
                        {instance.identity}
                      </span>
                    </div>
                    {/* The title and detail keep the figures as they stood when it fired; the linked page shows them now. */}
                    <div className="mt-0.5 text-[12px]" data-testid="alert-detail">
                      <span className="text-muted">Value when it fired: </span>
                      <LongText text={instance.detail} lines={2} />
                    </div>
                    {consolePath(instance.link) ? (
                      <Link
                        href={instance.link}
                        className="text-[12px] text-accent hover:underline"
                        data-testid="alert-link"
                        aria-label={`Open in the console: ${instance.title}`}
                      >
                        Live value now: open in the console →
                      </Link>
                    ) : null}{' '}
                    <Link
                      href={runbookPath(instance.kind)}
                      className="text-[12px] text-accent hover:underline"
                      data-testid="alert-runbook"
                      aria-label={`Runbook: ${instance.title}`}
                    >
                      Runbook →
                    </Link>
                  </Cell>
                  <Cell className={`text-[12px] ${stacked.cell}`} data-label="Fired">
                    <AlertState alert={instance} now={now} mayAcknowledge={mayAcknowledge} maySilence={maySilence} />
                  </Cell>
                  <Cell className={`text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Owner">
                    <AlertOwner owner={owners.get(instance.id)} team={instance.team} />
                  </Cell>
                  <Cell className={`min-w-64 text-[12px] ${stacked.controls}`}>
                    {instance.deliveries.length === 0 ? (
                      <span className="text-muted">none (no channel took it)</span>
                    ) : (
                      <ul className="divide-y divide-line">
                        {instance.deliveries.map((delivery) => (
                          <Delivery key={delivery.id} delivery={delivery} />
                        ))}
                      </ul>
                    )}
                  </Cell>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </div>
      <div>
        <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
          <h2 className="text-[14px] font-medium">Tests sent from the console</h2>
          <p className="text-[12px] text-muted">
            Showing {formatCount(tests.length)} of {formatCount(totalTests)}
          </p>
        </div>
        {tests.length === 0 ? (
          <p className="text-[13px] text-muted" data-testid="tests-empty">
            None yet: &ldquo;Send a test&rdquo; under Channels sends one, and its delivery shows here.
          </p>
        ) : (
          <ul
            className="divide-y divide-line rounded-lg border border-line bg-surface px-3 text-[12px]"
            data-testid="tests-list"
          >
            {tests.map((delivery) => (
              <Delivery key={delivery.id} delivery={delivery} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
