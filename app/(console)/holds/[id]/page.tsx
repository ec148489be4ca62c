import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { AuditTable } from '@/components/console/audit-table';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { Fact } from '@/components/ui/fact';
import { LongText } from '@/components/ui/long-text';
import { PageHeader } from '@/components/ui/page-header';
import { Age, Moment } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { decide, decideHoldClear } from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import { holdReasonLabels } from '@/lib/console/labels/hold-reasons';
import { isFrozenHold } from '@/lib/queries/frozen-holds';
import { getHoldDetail, HOLD_HISTORY_SHOWN } from '@/lib/queries/hold-detail';
import { parseRowId } from '@/lib/queries/row-id';
import { readConsole } from '@/lib/server/read-source/read-console';
import { readNotice } from '@/lib/server/read-source/notice';
import { requirePerson } from '@/lib/server/session';
import { ClearHoldForm } from '../clear-hold-form';
import { ReassignHoldForm } from '../hold-forms';
import { ItemLink, itemLabel } from '../hold-item-link';

export const metadata: Metadata = { title: 'Hold' };
export const dynamic = 'force-dynamic';

const STATUS_ID = 'hold-status';

/** One hold: what is parked and why, who owns it, what may be done with it here, and its audit history. */
export default async function HoldPage({ params }: { params: Promise<{ id: string }> }) {
  const person = await requirePerson();
  const id = parseRowId((await params).id);
  if (id === undefined) notFound();
  const now = new Date();
  // A hold the replica has not received yet is looked up on the primary before answering 404.
  const { value: detail, source } = await readConsole((db) => getHoldDetail(db, id), {
    orPrimaryWhen: (found) => !found,
  });
  if (!detail) notFound();
  const { hold, history } = detail;
  const open = hold.status === 'open';
  const frozen = open && isFrozenHold(hold, now, getEnvironment().HOLDFAST_FROZEN_AFTER_DAYS);
  const clear = decideHoldClear(person, hold);
  const mayReassign = decide(person, 'hold.reassign', { owner: hold.owner }).allowed;

  return (
    <>
      <p className="mb-2 text-[13px]">
        <Link href="/holds" className="text-accent hover:underline">
          ← Holds
        </Link>
      </p>
      <PageHeader title={`Hold ${hold.id}`} description={`${holdReasonLabels[hold.reason]}.`} />
      <ReadSourceNotice notice={readNotice(source)} />
      <p id={STATUS_ID} tabIndex={-1} className="mb-4 text-[14px] focus:outline-none" data-testid="hold-status">
        Status: <strong>{hold.status}</strong>
        {open ? (
          <>
            , waiting <Age since={hold.openedAt} now={now} />
            {frozen ? (
              <span className="ml-1.5 rounded bg-danger-soft px-1.5 py-0.5 text-[11px] text-danger">frozen</span>
            ) : null}
          </>
        ) : (
          <span className="[overflow-wrap:anywhere]" data-testid="hold-resolution">
            {' '}
            ({hold.resolution} by <VisibleText text={hold.clearedBy ?? '—'} />, <Moment value={hold.clearedAt} />
            ): <VisibleText text={hold.resolutionNote} />
          </span>
        )}
      </p>

      <dl className="grid grid-cols-2 gap-3 text-[13px] lg:grid-cols-4" data-testid="hold-facts">
        <Fact label="Reason">
          {holdReasonLabels[hold.reason]} <span className="font-mono text-[12px] text-muted">{hold.reason}</span>
        </Fact>
        <Fact label="Item">
          <span className="font-mono text-[12px]">
            <ItemLink hold={hold} />
          </span>
        </Fact>
        <Fact label="Owner">
          <VisibleText text={hold.owner} />
        </Fact>
        <Fact label="Opened">
          <Moment value={hold.openedAt} precision="second" />
        </Fact>
      </dl>

      <section className="mt-6" aria-label="Detail" data-testid="hold-detail">
        <h2 className="mb-2 text-[15px] font-semibold">Detail</h2>
        <LongText text={hold.detail} lines={4} />
      </section>

      {open ? (
        <section className="mt-6 max-w-3xl" aria-label="Clear or reassign this hold">
          <h2 className="mb-2 text-[15px] font-semibold">Clear or reassign</h2>
          <ClearHoldForm
            holdId={hold.id}
            itemType={hold.itemType}
            itemId={hold.itemId}
            itemLabel={itemLabel(hold)}
            headingId={STATUS_ID}
            refusal={clear.allowed ? undefined : clear.reason}
            mayReassign={mayReassign}
          />
          {mayReassign ? (
            <div className="mt-2">
              <ReassignHoldForm holdId={hold.id} owner={hold.owner} itemLabel={itemLabel(hold)} headingId={STATUS_ID} />
            </div>
          ) : null}
        </section>
      ) : null}

      <section className="mt-8" aria-labelledby="hold-history-heading">
        <h2 id="hold-history-heading" className="mb-2 text-[15px] font-semibold">
          History
        </h2>
        {history.length === 0 ? (
          <p className="text-[13px] text-muted" data-testid="hold-history-empty">
            No audit record names this hold.
          </p>
        ) : (
          <>
            <AuditTable records={history} showing={`${history.length} record${history.length === 1 ? '' : 's'}`} />
            {history.length === HOLD_HISTORY_SHOWN ? (
              <Link
                href={`/audit?${new URLSearchParams({ targetType: 'hold', targetId: String(hold.id) })}`}
                className="mt-2 inline-block text-[12px] text-accent hover:underline"
              >
                All of its records on Audit →
              </Link>
            ) : null}
          </>
        )}
      </section>
    </>
  );
}
