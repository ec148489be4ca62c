import Link from 'next/link';
import { LongText } from '@/components/ui/long-text';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { formatMicros } from '@/lib/console/format';
import { costSourceLabel } from '@/lib/console/labels/sources';
import type { CostSource, ErrorClass } from '@holdfast/protocol/enums';
import { VisibleText } from '@/components/ui/visible-text';

export interface RecentFailure {
  taskId: string;
  attemptNumber: number;
  startedAt: Date;
  errorClass: ErrorClass | null;
  errorText: string | null;
  costMicros: number;
  /** Where the cost came from; null where the attempt recorded none. */
  costSource: CostSource | null;
}

/** An attempt's cost and where it came from: "$0.0042 · priced". */
function CostWithSource({ failure }: { failure: RecentFailure }) {
  return (
    <>
      {formatMicros(failure.costMicros)}
      <span className="text-muted" data-testid="cost-source">
        {' · '}
        {costSourceLabel(failure.costSource)}
      </span>
    </>
  );
}

const taskHref = (taskId: string) => `/tasks/${encodeURIComponent(taskId)}`;

/**
 * A step's latest failing attempts, each linked to its task: a table from 768
 * px, stacked rows below it, so on a phone the error reads at full width
 * rather than in a column scrolled off the screen.
 */
export function RecentFailures({ failures }: { failures: RecentFailure[] }) {
  return (
    <>
      <div className="hidden md:block">
        <Table data-testid="recent-failures">
          <caption className="sr-only">The most recent failed attempts of this step, newest first</caption>
          <thead>
            <tr>
              <HeaderCell>Started</HeaderCell>
              <HeaderCell>Task</HeaderCell>
              <HeaderCell numeric>Attempt</HeaderCell>
              <HeaderCell numeric title="The attempt's cost, and where it came from (reported, priced, rule, none)">
                Cost · source
              </HeaderCell>
              <HeaderCell>Error</HeaderCell>
            </tr>
          </thead>
          <tbody>
            {failures.map((failure) => (
              <tr key={`${failure.taskId}-${failure.attemptNumber}`} className="align-top">
                <Cell className="whitespace-nowrap text-muted">
                  <Moment value={failure.startedAt} precision="second" />
                </Cell>
                <Cell className="min-w-[9rem] max-w-[16rem]">
                  <Link
                    href={taskHref(failure.taskId)}
                    className="font-mono text-[12px] text-accent [overflow-wrap:anywhere] hover:underline"
                  >
                    <VisibleText text={failure.taskId} />
                  </Link>
                </Cell>
                <Cell numeric>{failure.attemptNumber}</Cell>
                <Cell numeric className="whitespace-nowrap">
                  <CostWithSource failure={failure} />
                </Cell>
                <Cell className="w-full min-w-[16rem]">
                  <span className="font-mono text-[12px]">{failure.errorClass}</span>
                  <div className="text-[12px] text-muted">
                    <LongText text={failure.errorText ?? ''} lines={2} />
                  </div>
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      </div>
      <ul
        className="flex flex-col divide-y divide-line rounded-lg border border-line bg-surface md:hidden"
        data-testid="recent-failures-list"
        aria-label="The most recent failed attempts of this step, newest first"
      >
        {failures.map((failure) => (
          <li key={`${failure.taskId}-${failure.attemptNumber}`} className="min-w-0 px-3 py-2 text-[13px]">
            <div className="flex flex-wrap items-baseline gap-x-2">
              <Link
                href={taskHref(failure.taskId)}
                className="min-w-0 font-mono text-[12px] text-accent [overflow-wrap:anywhere] hover:underline"
              >
                <VisibleText text={failure.taskId} />
              </Link>
              <span className="text-[12px] text-muted">attempt {failure.attemptNumber}</span>
              <span className="text-[12px]">
                <CostWithSource failure={failure} />
              </span>
              <span className="text-[12px] text-muted">
                <Moment value={failure.startedAt} precision="second" />
              </span>
            </div>
            <span className="font-mono text-[12px]">{failure.errorClass}</span>
            <div className="text-[12px] text-muted">
              <LongText text={failure.errorText ?? ''} lines={2} />
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
