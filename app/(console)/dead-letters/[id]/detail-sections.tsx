import Link from 'next/link';
import type { ReactNode } from 'react';
import { LongText } from '@/components/ui/long-text';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { formatCount, formatMicros } from '@/lib/console/format';
import type { DeadLetterDetail } from '@/lib/queries/dead-letter-detail';
import { VisibleText } from '@/components/ui/visible-text';
import { visibleText } from '@/lib/console/visible-text';

const outcomeStyle: Record<string, string> = { succeeded: 'text-ok', failed: 'text-danger', running: 'text-warn' };

function Section({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <section className="mt-8" aria-label={visibleText(title)} data-testid={testId}>
      <h2 className="mb-2 text-[15px] font-semibold">
        <VisibleText text={title} />
      </h2>
      {children}
    </section>
  );
}

function Headers({ labels, numeric = [] }: { labels: string[]; numeric?: string[] }) {
  return (
    <thead>
      <tr>
        {labels.map((label) => (
          <HeaderCell key={label} numeric={numeric.includes(label)}>
            {label}
          </HeaderCell>
        ))}
      </tr>
    </thead>
  );
}

/** Every attempt of the step that failed, from the attempts log. */
export function AttemptsSection({ attempts, step }: { attempts: DeadLetterDetail['attempts']; step: string }) {
  return (
    <Section title={`Attempts of ${step}`} testId="dead-letter-attempts">
      {attempts.length === 0 ? (
        <p className="text-[13px] text-muted">No attempts of this step were reported to Holdfast.</p>
      ) : (
        <Table>
          <caption className="sr-only">Every attempt of the failed step, in order</caption>
          <Headers
            labels={['Attempt', 'Outcome', 'Error', 'Latency', 'Cost', 'Started']}
            numeric={['Attempt', 'Latency', 'Cost']}
          />
          <tbody>
            {attempts.map((attempt) => (
              <tr key={`${attempt.attemptNumber}-${attempt.startedAt.toISOString()}`} className="align-top">
                <Cell numeric>{attempt.attemptNumber}</Cell>
                <Cell className={outcomeStyle[attempt.outcome]}>{attempt.outcome}</Cell>
                <Cell className="min-w-56 max-w-md">
                  <span className="block font-mono text-[12px]">{attempt.errorClass ?? '—'}</span>
                  {attempt.errorText ? (
                    <div className="text-[12px] text-muted">
                      <LongText text={attempt.errorText} lines={2} />
                    </div>
                  ) : null}
                </Cell>
                <Cell numeric>{attempt.latencyMs === null ? '—' : `${formatCount(attempt.latencyMs)} ms`}</Cell>
                <Cell numeric>{formatMicros(attempt.costMicros)}</Cell>
                <Cell className="whitespace-nowrap">
                  <Moment value={attempt.startedAt} precision="second" />
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Section>
  );
}

/** The holds on this dead letter or its task, open and cleared. */
export function HoldsSection({ holds }: { holds: DeadLetterDetail['holds'] }) {
  return (
    <Section title="Holds" testId="dead-letter-holds">
      {holds.length === 0 ? (
        <p className="text-[13px] text-muted">No holds on this dead letter or its task.</p>
      ) : (
        <Table>
          <caption className="sr-only">Holds on this dead letter or its task, oldest first</caption>
          <Headers labels={['Hold', 'Reason', 'Detail', 'Owner', 'Opened', 'Status']} />
          <tbody>
            {holds.map((hold) => (
              <tr key={hold.id} className="align-top" data-testid={`dead-letter-hold-${hold.id}`}>
                <Cell className="whitespace-nowrap">
                  {hold.id} <span className="text-muted">({hold.itemType.replace('_', ' ')})</span>
                </Cell>
                <Cell className="font-mono text-[12px]">{hold.reason}</Cell>
                <Cell className="min-w-56 max-w-md text-[12px]">
                  <LongText text={hold.detail} lines={2} />
                </Cell>
                <Cell className="text-[12px] [overflow-wrap:anywhere]">
                  <VisibleText text={hold.owner} />
                </Cell>
                <Cell className="whitespace-nowrap">
                  <Moment value={hold.openedAt} />
                </Cell>
                <Cell className="text-[12px]">
                  {hold.status === 'open' ? (
                    <Link href="/holds" className="text-accent hover:underline">
                      open
                    </Link>
                  ) : (
                    <>
                      {hold.resolution} by {hold.clearedBy} <Moment value={hold.clearedAt} />
                      {hold.resolutionNote ? (
                        <span className="block text-muted [overflow-wrap:anywhere]">“{hold.resolutionNote}”</span>
                      ) : null}
                    </>
                  )}
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Section>
  );
}

/** The task's redrives, oldest first: who, when, why, and whether it reached its queue. */
export function RedrivesSection({
  redrives,
  deadLetterId,
}: {
  redrives: DeadLetterDetail['redrives'];
  deadLetterId: number;
}) {
  return (
    <Section title="Redrive history of the task" testId="dead-letter-redrives">
      {redrives.length === 0 ? (
        <p className="text-[13px] text-muted">This task has never been redriven.</p>
      ) : (
        <Table>
          <caption className="sr-only">Redrives of this task, oldest first</caption>
          <Headers labels={['Redrive', 'Runs as', 'Who', 'When', 'Reason', 'Delivered']} />
          <tbody>
            {redrives.map((redrive) => (
              <tr key={redrive.id} className="align-top" data-testid={`dead-letter-redrive-${redrive.number}`}>
                <Cell className="whitespace-nowrap">
                  #{redrive.number}{' '}
                  {redrive.deadLetterId === deadLetterId ? (
                    <span className="text-muted">(this dead letter)</span>
                  ) : (
                    <Link href={`/dead-letters/${redrive.deadLetterId}`} className="text-accent hover:underline">
                      of dead letter {redrive.deadLetterId}
                    </Link>
                  )}
                </Cell>
                <Cell className="min-w-32 [overflow-wrap:anywhere]">
                  {redrive.payloadEdited ? (
                    <>
                      <Link
                        href={`/tasks/${encodeURIComponent(redrive.taskId)}`}
                        className="font-mono text-accent hover:underline"
                      >
                        <VisibleText text={redrive.taskId} />
                      </Link>
                      <div className="text-[12px] text-muted">edited payload</div>
                    </>
                  ) : (
                    <span className="text-muted">the same task</span>
                  )}
                </Cell>
                <Cell className="[overflow-wrap:anywhere]">{redrive.requestedBy}</Cell>
                <Cell className="whitespace-nowrap">
                  <Moment value={redrive.requestedAt} precision="second" />
                </Cell>
                <Cell className="min-w-40 max-w-md [overflow-wrap:anywhere]">{redrive.reason ?? '—'}</Cell>
                <Cell className="text-[12px]">
                  {redrive.deliveredAt ? (
                    <>
                      delivered <Moment value={redrive.deliveredAt} precision="second" />
                    </>
                  ) : (
                    <>
                      not yet delivered
                      {redrive.deliveryAttempts > 0 ? ` (${formatCount(redrive.deliveryAttempts)} tries)` : ''}
                      {redrive.lastError ? (
                        <div className="text-muted">
                          <LongText text={redrive.lastError} lines={2} />
                        </div>
                      ) : null}
                    </>
                  )}
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Section>
  );
}
