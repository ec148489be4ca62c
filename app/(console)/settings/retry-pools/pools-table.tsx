import { EditAndDeleteCell } from '@/components/console/edit-and-delete';
import { ALL_STEPS, formatWindow, poolScope } from '@/components/retry-pools/pool-format';
import { PoolLevelBar } from '@/components/retry-pools/pool-level-bar';
import { ActionsHeaderCell, Cell, HeaderCell, Table } from '@/components/ui/table';
import { MomentBy } from '@/components/ui/time';
import { formatCount } from '@/lib/console/format';
import type { RetryPoolRow } from '@/lib/queries/retry-pools';
import { stacked } from '@/components/ui/stacked-rows';
import { DeletePool } from './delete-pool';
import { VisibleText } from '@/components/ui/visible-text';

/** Every pool with its rule, its room now and what it refused; admins also get Edit and Delete. */
export function PoolsTable({
  pools,
  manage,
  editingId,
  headingId,
}: {
  pools: RetryPoolRow[];
  manage: boolean;
  editingId?: number;
  /** The list's heading, focused when a deleted row takes its button away. */
  headingId: string;
}) {
  return (
    <Table data-testid="pools-table" className={stacked.table}>
      <caption className="sr-only">Retry pools by agent, the agent-wide pool first</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>Agent</HeaderCell>
          <HeaderCell>Step</HeaderCell>
          <HeaderCell numeric title="Retries allowed as a percentage of first attempts in the window">
            Budget
          </HeaderCell>
          <HeaderCell numeric title="Retries per second of the window allowed whatever the first attempts">
            Floor
          </HeaderCell>
          <HeaderCell numeric>Window</HeaderCell>
          <HeaderCell title="Retries that may still be granted now, of those the window allows">Level now</HeaderCell>
          <HeaderCell numeric title="Retries refused in the pool's window, summed over the steps it covers">
            Refused (window)
          </HeaderCell>
          <HeaderCell numeric title="Retries refused in the last 24 hours, summed over the steps it covers">
            Refused (24 h)
          </HeaderCell>
          <HeaderCell>Updated</HeaderCell>
          {/* relative: an sr-only label is placed against its cell, not the page, so it cannot widen a phone's page. */}
          {manage ? <ActionsHeaderCell /> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {pools.map((pool) => (
          <tr
            key={pool.id}
            data-testid={`pool-row-${pool.agent}-${pool.step}`}
            aria-current={pool.id === editingId ? 'true' : undefined}
            className={`${pool.id === editingId ? 'bg-accent-soft align-top' : 'align-top'} ${stacked.row}`}
          >
            <Cell className={`font-mono text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Agent">
              <VisibleText text={pool.agent} />
            </Cell>
            <Cell className={`font-mono text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Step">
              {pool.step === ALL_STEPS ? (
                <span className="font-sans italic text-muted">all steps</span>
              ) : (
                <VisibleText text={pool.step} />
              )}
            </Cell>
            <Cell numeric className={stacked.cell} data-label="Budget">
              {formatCount(pool.budgetPercent)}%
            </Cell>
            <Cell numeric className={stacked.cell} data-label="Floor">
              {formatCount(pool.minRetriesPerSecond)}/s
            </Cell>
            <Cell numeric className={stacked.cell} data-label="Window">
              {formatWindow(pool.windowSeconds)}
            </Cell>
            <Cell className={stacked.cell} data-label="Level now">
              <div className="min-w-0">
                <PoolLevelBar left={pool.level.left} allowed={pool.level.allowed} />
                <span className="mt-0.5 block whitespace-nowrap text-[11px] text-muted">
                  {formatCount(pool.level.retries)} retries / {formatCount(pool.level.firstAttempts)} first
                </span>
              </div>
            </Cell>
            <Cell
              numeric
              data-testid="refused-window"
              data-label="Refused (window)"
              className={`${pool.refusalsInWindow > 0 ? 'font-medium text-danger' : ''} ${stacked.cell}`}
            >
              {formatCount(pool.refusalsInWindow)}
            </Cell>
            <Cell numeric data-testid="refused-24h" data-label="Refused (24 h)" className={stacked.cell}>
              {formatCount(pool.refusals24h)}
            </Cell>
            <Cell className={`text-[12px] text-muted ${stacked.cell}`} data-label="Updated">
              <MomentBy at={pool.updatedAt} by={pool.updatedBy} />
            </Cell>
            {manage ? (
              <EditAndDeleteCell
                editHref={`/settings/retry-pools?edit=${pool.id}#pool-form`}
                editLabel={`Edit the pool of ${poolScope(pool)}`}
              >
                <DeletePool poolId={pool.id} scope={poolScope(pool)} headingId={headingId} />
              </EditAndDeleteCell>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
