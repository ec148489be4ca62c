import type { Metadata } from 'next';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { decide } from '@holdfast/engine/core';
import { listRetryPools } from '@/lib/queries/retry-pools';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { PoolForm } from './pool-form';
import { PoolsTable } from './pools-table';

export const metadata: Metadata = { title: 'Retry pools' };
export const dynamic = 'force-dynamic';

export default async function RetryPoolsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const manage = decide(person, 'retry_pool.manage');
  const pools = await listRetryPools(getDb(), new Date());
  const editId = Number((await searchParams).edit);
  const editing = manage.allowed ? pools.find((pool) => pool.id === editId) : undefined;

  return (
    <>
      <PageHeader
        title="Retry pools"
        description="Fleet-wide brakes on retries: per agent, or one of its steps, retries may be at most a share of first attempts over a sliding window, plus a small floor. An empty pool makes a retry wait, so an outage downstream cannot become a retry storm."
      />
      {manage.allowed ? (
        <PoolForm
          key={editing?.id ?? 'new'}
          pool={
            editing && {
              id: editing.id,
              agent: editing.agent,
              step: editing.step,
              budgetPercent: String(editing.budgetPercent),
              minRetriesPerSecond: String(editing.minRetriesPerSecond),
              windowSeconds: String(editing.windowSeconds),
              reason: '',
            }
          }
        />
      ) : (
        <p className="mb-4 text-[13px] text-muted" data-testid="retry-pools-read-only">
          Read only: {manage.reason}. You are signed in as a {person.role}; ask an admin to add, change or delete a
          pool.
        </p>
      )}
      <h2 id="pools-title" tabIndex={-1} className="mb-2 text-[14px] font-medium">
        Pools
      </h2>
      {pools.length === 0 ? (
        <EmptyState title="No retry pools yet" testId="retry-pools-empty">
          <span className="[overflow-wrap:anywhere]">
            A pool caps an agent&apos;s retries (or one step&apos;s) at a percentage of its first attempts over a
            sliding window, plus a small floor per second for quiet periods. When it is empty, a retry is refused with
            RETRY_BUDGET_EXHAUSTED and a Retry-After, and the agent waits. Without a pool, only each task&apos;s own
            retry allowance limits retries.
            {manage.allowed ? ' Add one above.' : ' An admin can add one.'}
          </span>
        </EmptyState>
      ) : (
        <PoolsTable pools={pools} manage={manage.allowed} editingId={editing?.id} headingId="pools-title" />
      )}
      <p className="mt-3 max-w-prose text-[12px] text-muted">
        A retry needs room in every pool that covers its step: the agent&apos;s (all steps) and the step&apos;s own.
        Refusals are counted per step, so an agent-wide pool&apos;s figures include refusals made by its steps&apos;
        pools; they are kept for 24 hours.
      </p>
    </>
  );
}
