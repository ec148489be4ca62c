import type { Metadata } from 'next';
import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { decide } from '@/lib/core';
import { listOpenHolds } from '@/lib/queries/holds';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { ClearHoldForm } from './clear-hold-form';

export const metadata: Metadata = { title: 'Holds' };
export const dynamic = 'force-dynamic';

function age(since: Date, now: Date): string {
  const hours = Math.floor((now.getTime() - since.getTime()) / 3_600_000);
  return hours < 1 ? 'under an hour' : hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

export default async function HoldsPage() {
  const person = await requirePerson();
  const holds = await listOpenHolds(getDb());
  const now = new Date();

  return (
    <>
      <PageHeader title="Holds" description="Parked work waiting for a person. Resume puts it back to work; discard gives it up." />
      {holds.length === 0 ? (
        <EmptyState title="No open holds" testId="holds-empty">
          Work parks here when it needs a person: retries ran out, an outcome is uncertain, an approval is needed.
        </EmptyState>
      ) : (
        <Table data-testid="holds-table">
          <caption className="sr-only">Open holds, longest waiting first</caption>
          <thead>
            <tr>
              <HeaderCell>Reason</HeaderCell>
              <HeaderCell>Item</HeaderCell>
              <HeaderCell>Detail</HeaderCell>
              <HeaderCell>Owner</HeaderCell>
              <HeaderCell>Waiting</HeaderCell>
              <HeaderCell>Action</HeaderCell>
            </tr>
          </thead>
          <tbody>
            {holds.map((hold) => {
              const decision = decide(person, 'hold.clear', { owner: hold.owner });
              return (
                <tr key={hold.id} data-testid={`hold-row-${hold.itemId}`} className="align-top">
                  <Cell className="font-mono text-[12px]">{hold.reason}</Cell>
                  <Cell className="font-mono text-[12px]">
                    {hold.itemType === 'task' ? (
                      <Link href={`/tasks/${encodeURIComponent(hold.itemId)}`} className="text-accent hover:underline">
                        task:{hold.itemId}
                      </Link>
                    ) : (
                      `${hold.itemType}:${hold.itemId}`
                    )}
                  </Cell>
                  <Cell className="max-w-md">{hold.detail}</Cell>
                  <Cell className="text-muted">{hold.owner}</Cell>
                  <Cell className="whitespace-nowrap text-muted">{age(hold.openedAt, now)}</Cell>
                  <Cell className="min-w-72">
                    <ClearHoldForm holdId={hold.id} refusal={decision.allowed ? undefined : decision.reason} />
                  </Cell>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
    </>
  );
}
