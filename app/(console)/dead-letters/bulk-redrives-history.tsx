import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import type { DeadLetterFilter } from '@holdfast/engine/core';
import { formatCount } from '@/lib/console/format';
import type { BulkRedrive } from '@holdfast/engine/db/schema';
import { BulkRedriveProgress } from './bulk-redrive-panel';

/** Bulk redrives, newest first: who ran each, on which filter, and how far it got. */
export function BulkRedrivesHistory({ runs }: { runs: BulkRedrive[] }) {
  return (
    <>
      {/* Below the list, whose own bottom margin gives most of the gap. */}
      <h2 className="mb-2 mt-2 text-[15px] font-semibold">Bulk redrives</h2>
      {runs.length === 0 ? (
        <p className="text-[13px] text-muted">
          None yet. A bulk redrive is recorded here with who ran it, its filter and its counts.
        </p>
      ) : (
        <Table data-testid="bulk-redrives-table">
          <caption className="sr-only">Bulk redrives, newest first</caption>
          <thead>
            <tr>
              <HeaderCell>When</HeaderCell>
              <HeaderCell>Who</HeaderCell>
              <HeaderCell>Filter</HeaderCell>
              <HeaderCell>Reason</HeaderCell>
              <HeaderCell>Progress</HeaderCell>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id} className="align-top">
                <Cell className="whitespace-nowrap">
                  <Moment value={run.requestedAt} />
                </Cell>
                <Cell>{run.requestedBy}</Cell>
                <Cell className="max-w-xs font-mono text-[12px] [overflow-wrap:anywhere]">
                  {describeFilter(run.filter as DeadLetterFilter)}
                </Cell>
                <Cell className="max-w-xs [overflow-wrap:anywhere]">{run.reason}</Cell>
                <Cell className="min-w-72">
                  {run.status === 'running' ? (
                    <BulkRedriveProgress runId={run.id} />
                  ) : (
                    <span className="text-[12px] tabular-nums">
                      {run.status}: {formatCount(run.processed)} of {formatCount(run.total)} done,{' '}
                      {formatCount(run.redriven)} redriven, {formatCount(run.skipped)} skipped
                      {run.cancelledBy ? ` (cancelled by ${run.cancelledBy})` : ''}
                    </span>
                  )}
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}

function describeFilter(filter: DeadLetterFilter): string {
  const parts = Object.entries(filter).filter(([, value]) => value !== undefined && value !== '');
  return parts.length === 0 ? 'all pending' : parts.map(([name, value]) => `${name}=${String(value)}`).join(' ');
}
