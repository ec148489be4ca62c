import Link from 'next/link';
import { ALL_STEPS, formatWindow, poolScope } from '@/components/retry-pools/pool-format';
import { PoolLevelBar } from '@/components/retry-pools/pool-level-bar';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { formatCount, formatUtc } from '@/lib/console/format';
import type { RetryPoolRow } from '@/lib/queries/retry-pools';
import { DeletePool } from './delete-pool';

/** Every pool with its rule, its room now and what it refused; admins also get Edit and Delete. */
export function PoolsTable({
  pools,
  manage,
  editingId,
}: {
  pools: RetryPoolRow[];
  manage: boolean;
  editingId?: number;
}) {
  return (
    <Table data-testid="pools-table">
      <caption className="sr-only">Retry pools by agent, the agent-wide pool first</caption>
      <thead>
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
          {manage ? (
            <HeaderCell className="relative">
              <span className="sr-only">Actions</span>
            </HeaderCell>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {pools.map((pool) => (
          <tr
            key={pool.id}
            data-testid={`pool-row-${pool.agent}-${pool.step}`}
            aria-current={pool.id === editingId ? 'true' : undefined}
            className={pool.id === editingId ? 'bg-accent-soft align-top' : 'align-top'}
          >
            <Cell className="font-mono text-[12px]">{pool.agent}</Cell>
            <Cell className="font-mono text-[12px]">
              {pool.step === ALL_STEPS ? <span className="font-sans italic text-muted">all steps</span> : pool.step}
            </Cell>
            <Cell numeric>{formatCount(pool.budgetPercent)}%</Cell>
            <Cell numeric>{formatCount(pool.minRetriesPerSecond)}/s</Cell>
            <Cell numeric>{formatWindow(pool.windowSeconds)}</Cell>
            <Cell>
              <PoolLevelBar left={pool.level.left} allowed={pool.level.allowed} />
              <span className="mt-0.5 block whitespace-nowrap text-[11px] text-muted">
                {formatCount(pool.level.retries)} retries / {formatCount(pool.level.firstAttempts)} first
              </span>
            </Cell>
            <Cell
              numeric
              data-testid="refused-window"
              className={pool.refusalsInWindow > 0 ? 'font-medium text-danger' : undefined}
            >
              {formatCount(pool.refusalsInWindow)}
            </Cell>
            <Cell numeric data-testid="refused-24h">
              {formatCount(pool.refusals24h)}
            </Cell>
            <Cell className="text-[12px] text-muted">
              <span className="block whitespace-nowrap">{formatUtc(pool.updatedAt)}</span>
              <span className="block">{pool.updatedBy}</span>
            </Cell>
            {manage ? (
              <Cell>
                <div className="flex flex-col items-start gap-1">
                  <Link
                    href={`/settings/retry-pools?edit=${pool.id}#pool-form`}
                    className="text-[12px] text-accent hover:underline"
                    aria-label={`Edit the pool of ${poolScope(pool)}`}
                  >
                    Edit
                  </Link>
                  <DeletePool poolId={pool.id} scope={poolScope(pool)} />
                </div>
              </Cell>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
