import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import Link from 'next/link';
import { LongText } from '@/components/ui/long-text';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { decodeRouteParam } from '@holdfast/engine/core';
import { aliasAgentOf } from '@holdfast/engine/core';
import { formatCount, formatMicros } from '@/lib/console/format';
import { keyHref, keysPageHref } from '@/lib/console/filter-forms/keys';
import { getTaskTimeline } from '@/lib/queries/task-timeline';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readConsole } from '@/lib/server/read-source/read-console';
import { readNotice } from '@/lib/server/read-source/notice';
import { requirePerson } from '@/lib/server/session';
import { StepLink } from '../links';
import { TaskFamily } from './task-family';
import { TaskParked } from './task-parked';
import { TaskOwners } from './task-owners';
import { getStepOwners } from '@/lib/queries/step-owners';
import { getDb } from '@/lib/server/db';
import { VisibleText } from '@/components/ui/visible-text';

export const metadata: Metadata = { title: 'Task' };
export const dynamic = 'force-dynamic';

const outcomeStyle = { succeeded: 'text-ok', failed: 'text-danger', running: 'text-warn' } as const;

/** Below 768 px each attempt is a stacked card (see the Holds page). */
const stack = {
  row: 'max-md:block max-md:border-b max-md:border-line max-md:py-2',
  cell: 'max-md:block max-md:border-0 max-md:py-0.5 max-md:text-left',
};

/** A small label shown only in the stacked layout, where there is no column header. */
function StackedLabel({ children }: { children: string }) {
  return <span className="text-[11px] text-muted md:hidden">{children}: </span>;
}

/** The distinct steps this task ran (at most the first 20), each with its owner. */
async function ownersOfSteps(timeline: { agent: string; step: string }[]) {
  const steps = [...new Map(timeline.map((row) => [`${row.agent}/${row.step}`, row])).values()]
    .slice(0, 20)
    .map(({ agent, step }) => ({ agent, step }));
  if (steps.length === 0) return [];
  const owners = await getStepOwners(getDb(), steps);
  return steps.flatMap((step) => {
    const owner = owners.get(`${step.agent}/${step.step}`);
    return owner?.owner ? [{ ...step, owner }] : [];
  });
}

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  await requirePerson();
  const taskId = decodeRouteParam((await params).id);
  if (taskId === undefined) notFound();
  // A task the replica has not received yet is looked up on the primary before answering 404.
  const { value: task, source } = await readConsole((db) => getTaskTimeline(db, taskId), {
    orPrimaryWhen: (found) => !found,
  });
  if (!task) notFound();
  const { budget } = task;
  const owners = await ownersOfSteps(task.timeline);
  // The budget counts the retries charged to the task's allowance; a retry granted by a fleet pool, or one reported
  // straight to the attempts API, is in the timeline and not in that count: the header says both.
  const retriesSeen = task.timeline.filter((row) => row.attemptNumber > 1).length;
  // A task kept under its agent's alias because another agent's task had the id first (task-alias.ts).
  const aliasAgent = aliasAgentOf(taskId);
  const namedAs = aliasAgent === undefined ? taskId : taskId.slice(aliasAgent.length + 2);

  return (
    <>
      <PageHeader
        title={`Task ${taskId}`}
        description={
          budget
            ? `${budget.agent} · ${budget.status} · ${formatCount(retriesSeen)} ${retriesSeen === 1 ? 'retry' : 'retries'} (${budget.retriesUsed} of the allowance of ${budget.retryAllowance} used) · spent ${formatMicros(budget.spendMicros)} of ${formatMicros(budget.spendCeilingMicros)} · owner ${budget.owner}`
            : task.timeline.length > 0
              ? 'No budget recorded: attempts were reported directly.'
              : 'No attempts recorded for this task; it is known from its holds, dead letters or keys.'
        }
      />
      <ReadSourceNotice notice={readNotice(source)} />
      {aliasAgent ? (
        <p className="mb-3 text-[13px] text-muted [overflow-wrap:anywhere]" data-testid="task-alias">
          Agent {aliasAgent}&rsquo;s task <span className="font-mono">{namedAs}</span>: another agent&rsquo;s task had
          that id first, so this one is kept under its agent&rsquo;s name (each agent&rsquo;s task ids are its own).{' '}
          <Link href={`/tasks/${encodeURIComponent(namedAs)}`} className="text-accent underline">
            The other task named {namedAs}
          </Link>
        </p>
      ) : null}
      <TaskOwners owners={owners} />
      <TaskFamily task={task} />
      {task.keyCount > 0 ? (
        <p className="mb-3 text-[13px]">
          <Link href={keysPageHref({ taskId })} className="text-accent hover:underline" data-testid="task-keys-link">
            {task.keyCount === 1 ? 'Its key' : `Its ${formatCount(task.keyCount)} keys`} on the Keys page
          </Link>
        </p>
      ) : null}
      {task.timeline.length === 0 ? (
        <p className="text-[13px] text-muted" data-testid="task-no-attempts">
          No attempts of this task were reported.
        </p>
      ) : (
        <Table data-testid="task-timeline" className="max-md:block">
          <caption className="sr-only">Every attempt of every step of this task, in order</caption>
          <thead className="max-md:sr-only">
            <tr>
              {['Started', 'Step', 'Attempt', 'Outcome', 'Error', 'Latency', 'Cost', 'Key', 'Run'].map((label) => (
                <HeaderCell key={label} numeric={['Attempt', 'Latency', 'Cost'].includes(label)}>
                  {label}
                </HeaderCell>
              ))}
            </tr>
          </thead>
          <tbody className="max-md:block">
            {task.timeline.map((row) => (
              <tr
                key={row.id}
                data-testid={`attempt-${row.step}-${row.attemptNumber}`}
                className={`align-top ${stack.row}`}
              >
                <Cell className={`whitespace-nowrap text-muted ${stack.cell}`}>
                  <Moment value={row.startedAt} precision="second" />
                </Cell>
                <Cell className={`max-w-48 font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                  <StepLink agent={row.agent} step={row.step} />
                </Cell>
                <Cell numeric className={stack.cell}>
                  <StackedLabel>Attempt</StackedLabel>
                  {row.attemptNumber}
                </Cell>
                <Cell data-testid="outcome" className={`${outcomeStyle[row.outcome]} ${stack.cell}`}>
                  {row.outcome}
                </Cell>
                <Cell data-testid="error" className={`max-w-sm ${stack.cell}`}>
                  {row.errorClass ? <span className="font-mono text-[12px]">{row.errorClass}</span> : null}
                  {row.errorText ? (
                    <div className="text-[12px] text-muted">
                      <LongText text={row.errorText} lines={2} />
                    </div>
                  ) : null}
                </Cell>
                <Cell numeric className={stack.cell}>
                  <StackedLabel>Latency</StackedLabel>
                  {row.latencyMs === null ? '—' : `${formatCount(row.latencyMs)} ms`}
                </Cell>
                <Cell numeric className={stack.cell}>
                  <StackedLabel>Cost</StackedLabel>
                  {formatMicros(row.costMicros)}
                </Cell>
                <Cell data-testid="key" className={`max-w-56 text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                  {row.key ? (
                    <>
                      <Link href={keyHref(row.key)} className="font-mono text-accent hover:underline">
                        <VisibleText text={row.key} />
                      </Link>
                      <span className="block text-muted">{row.keyStatus ?? 'expired'}</span>
                    </>
                  ) : (
                    '—'
                  )}
                </Cell>
                <Cell className={`max-w-48 text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
                  <StackedLabel>Run</StackedLabel>
                  {row.runKey ? (
                    <>
                      <VisibleText text={row.runKey} /> ({row.runStatus ?? 'unknown'})
                    </>
                  ) : (
                    '—'
                  )}
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
