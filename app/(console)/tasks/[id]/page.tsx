import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { PageHeader } from '@/components/ui/page-header';
import { decodeRouteParam } from '@/lib/auth/console-input';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { formatCount, formatMicros } from '@/lib/console/format';
import { getTaskTimeline } from '@/lib/queries/task-timeline';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { TaskParked } from './task-parked';
import { LongText } from '@/components/ui/long-text';

export const metadata: Metadata = { title: 'Task' };
export const dynamic = 'force-dynamic';

const outcomeStyle = { succeeded: 'text-ok', failed: 'text-danger', running: 'text-warn' } as const;

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  await requirePerson();
  const taskId = decodeRouteParam((await params).id);
  if (taskId === undefined) notFound();
  const task = await getTaskTimeline(getDb(), taskId);
  if (!task) notFound();
  const { budget } = task;

  return (
    <>
      <PageHeader
        title={`Task ${taskId}`}
        description={
          budget
            ? `${budget.agent} · ${budget.status} · retries ${budget.retriesUsed} of ${budget.retryAllowance} · spent ${formatMicros(budget.spendMicros)} of ${formatMicros(budget.spendCeilingMicros)} · owner ${budget.owner}`
            : task.timeline.length > 0
              ? 'No budget recorded: attempts were reported directly.'
              : 'No attempts recorded for this task; it is known from its holds or dead letters.'
        }
      />
      {task.timeline.length === 0 ? (
        <p className="text-[13px] text-muted" data-testid="task-no-attempts">
          No attempts of this task were reported.
        </p>
      ) : (
        <Table data-testid="task-timeline">
          <caption className="sr-only">Every attempt of every step of this task, in order</caption>
          <thead>
            <tr>
              {['Started (UTC)', 'Step', 'Attempt', 'Outcome', 'Error', 'Latency', 'Cost', 'Key', 'Run'].map(
                (label) => (
                  <HeaderCell key={label} numeric={['Attempt', 'Latency', 'Cost'].includes(label)}>
                    {label}
                  </HeaderCell>
                ),
              )}
            </tr>
          </thead>
          <tbody>
            {task.timeline.map((row) => (
              <tr key={row.id} data-testid={`attempt-${row.step}-${row.attemptNumber}`} className="align-top">
                <Cell className="whitespace-nowrap text-muted">
                  {row.startedAt.toISOString().slice(0, 19).replace('T', ' ')}
                </Cell>
                <Cell className="font-mono text-[12px]">{row.step}</Cell>
                <Cell numeric>{row.attemptNumber}</Cell>
                <Cell data-testid="outcome" className={outcomeStyle[row.outcome]}>
                  {row.outcome}
                </Cell>
                <Cell data-testid="error" className="max-w-sm">
                  {row.errorClass ? <span className="font-mono text-[12px]">{row.errorClass}</span> : null}
                  {row.errorText ? (
                    <div className="text-[12px] text-muted">
                      <LongText text={row.errorText} lines={2} />
                    </div>
                  ) : null}
                </Cell>
                <Cell numeric>{row.latencyMs === null ? '—' : `${formatCount(row.latencyMs)} ms`}</Cell>
                <Cell numeric>{formatMicros(row.costMicros)}</Cell>
                <Cell data-testid="key" className="text-[12px]">
                  {row.key ? (
                    <>
                      <span className="font-mono">{row.key}</span>
                      <span className="block text-muted">{row.keyStatus ?? 'expired'}</span>
                    </>
                  ) : (
                    '—'
                  )}
                </Cell>
                <Cell className="text-[12px]">
                  {row.runKey ? `${row.runKey} (${row.runStatus ?? 'unknown'})` : '—'}
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <TaskParked deadLetters={task.deadLetters} holds={task.holds} />
    </>
  );
}
