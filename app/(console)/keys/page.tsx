import type { Metadata } from 'next';
import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import type { IdempotencyKey } from '@/lib/db/schema';
import { formatMicros, formatUtc } from '@/lib/console/format';
import { keyHref, keysFilter, keysFilterLabels } from '@/lib/console/filters/keys';
import { readFilter } from '@/lib/console/read-filter';
import { findKeys, getKeyDetail, listExpiredInProgress, listRecentPayloadMismatches } from '@/lib/queries/keys';
import { requirePerson } from '@/lib/server/session';
import { getDb } from '@/lib/server/db';
import { visibleText } from '@/lib/console/visible-text';
import { FilterNotices } from '../filter-notices';
import { LongText } from '@/components/ui/long-text';

export const metadata: Metadata = { title: 'Keys' };
export const dynamic = 'force-dynamic';

const when = (moment: Date | null) => formatUtc(moment, 'second');

function KeyTable({ rows, testId, caption }: { rows: IdempotencyKey[]; testId: string; caption: string }) {
  return (
    <Table data-testid={testId}>
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          <HeaderCell>Key</HeaderCell>
          <HeaderCell>Status</HeaderCell>
          <HeaderCell>Task / step</HeaderCell>
          <HeaderCell>In progress until</HeaderCell>
          <HeaderCell>Kept until</HeaderCell>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            <Cell className="font-mono text-[12px]">
              <Link href={keyHref(row.key)} className="text-accent hover:underline">
                {row.key}
              </Link>
            </Cell>
            <Cell className="font-mono text-[12px]">{row.status}</Cell>
            <Cell className="font-mono text-[12px]">
              {row.taskId ?? '—'} / {row.step ?? '—'}
            </Cell>
            <Cell className="whitespace-nowrap">{when(row.lockedUntil)}</Cell>
            <Cell className="whitespace-nowrap">{when(row.expiresAt)}</Cell>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

export default async function KeysPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePerson();
  const { filter: search, notices } = readFilter(keysFilter, await searchParams);
  const db = getDb();
  const searching = Boolean(search.key || search.taskId || search.step);
  const [found, detail, expired, mismatches] = await Promise.all([
    searching ? findKeys(db, search) : Promise.resolve(undefined),
    search.show ? getKeyDetail(db, search.show) : Promise.resolve(undefined),
    listExpiredInProgress(db),
    listRecentPayloadMismatches(db),
  ]);

  return (
    <>
      <PageHeader
        title="Keys"
        description="Derived idempotency keys: what each operation did, what is still in flight, and what nobody can vouch for."
      />
      <form
        method="get"
        className="mb-5 flex flex-wrap items-end gap-3"
        aria-label="Look up keys"
        data-testid="key-search"
      >
        <Field label={keysFilterLabels.key}>
          <Input name="key" defaultValue={search.key ?? ''} className="min-w-64" />
        </Field>
        <Field label={keysFilterLabels.taskId}>
          <Input name="taskId" defaultValue={search.taskId ?? ''} />
        </Field>
        <Field label={keysFilterLabels.step}>
          <Input name="step" defaultValue={search.step ?? ''} />
        </Field>
        <Button type="submit" size="md">
          Look up
        </Button>
      </form>
      <FilterNotices notices={notices} />

      {search.show ? (
        detail ? (
          <section
            aria-labelledby="key-detail"
            className="mb-6 rounded-lg border border-line bg-surface p-4"
            data-testid="key-detail"
          >
            <h2 id="key-detail" className="mb-2 font-mono text-[14px] font-semibold">
              {detail.key.key}
            </h2>
            <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-[13px]">
              <dt className="text-muted">Status</dt>
              <dd data-testid="key-status">{detail.key.status}</dd>
              <dt className="text-muted">Payload hash</dt>
              <dd className="break-all font-mono text-[12px]">{detail.key.requestHash}</dd>
              <dt className="text-muted">Stored result</dt>
              <dd className="font-mono text-[12px]">
                {detail.key.result === null ? '—' : JSON.stringify(detail.key.result)}
              </dd>
              <dt className="text-muted">Error</dt>
              <dd>
                {detail.key.errorClass ? (
                  <>
                    {detail.key.errorClass}: <LongText text={detail.key.errorText ?? ''} lines={2} />
                  </>
                ) : (
                  '—'
                )}
              </dd>
              <dt className="text-muted">In progress until</dt>
              <dd>{when(detail.key.lockedUntil)}</dd>
              <dt className="text-muted">Kept until</dt>
              <dd>{when(detail.key.expiresAt)}</dd>
              <dt className="text-muted">Acquisitions / claim calls</dt>
              <dd>
                {detail.key.acquisitions} / {detail.key.claimCalls} (each claim past the first was a duplicate delivery)
              </dd>
              <dt className="text-muted">Downstream deduplicates</dt>
              <dd>{detail.key.downstreamIdempotent ? 'yes' : 'no: an interrupted attempt is held as uncertain'}</dd>
              <dt className="text-muted">Task</dt>
              <dd>
                {detail.key.taskId ? (
                  <Link
                    href={`/tasks/${encodeURIComponent(detail.key.taskId)}`}
                    className="text-accent hover:underline"
                  >
                    {detail.key.taskId}
                  </Link>
                ) : (
                  '—'
                )}
              </dd>
            </dl>
            <h3 className="mb-1 mt-4 text-[13px] font-semibold">Attempts under this key</h3>
            {detail.attempts.length === 0 ? (
              <p className="text-[13px] text-muted">None recorded.</p>
            ) : (
              <ul className="text-[13px]" data-testid="key-attempts">
                {detail.attempts.map((attempt) => (
                  <li key={`${attempt.attemptNumber}-${attempt.startedAt.toISOString()}`}>
                    #{attempt.attemptNumber} {attempt.outcome} at {when(attempt.startedAt)},{' '}
                    {formatMicros(attempt.costMicros)}
                    {attempt.errorText ? ` — ${attempt.errorClass}: ${visibleText(attempt.errorText)}` : ''}
                  </li>
                ))}
              </ul>
            )}
            <h3 className="mb-1 mt-4 text-[13px] font-semibold">Holds</h3>
            {detail.holds.length === 0 ? (
              <p className="text-[13px] text-muted">None.</p>
            ) : (
              <ul className="text-[13px]">
                {detail.holds.map((hold) => (
                  <li key={hold.id}>
                    {hold.reason} ({hold.status}), owner {hold.owner}: {visibleText(hold.detail)}
                  </li>
                ))}
              </ul>
            )}
          </section>
        ) : (
          <p role="alert" className="mb-5 text-[13px] text-danger">
            No key {search.show}: it never existed, or it expired and was swept.
          </p>
        )
      ) : null}

      {found ? (
        <section aria-label="Keys found" className="mb-6">
          <h2 className="mb-2 text-[15px] font-semibold">Found</h2>
          {found.length === 0 ? (
            <EmptyState title="No key matches" testId="keys-none-found" />
          ) : (
            <KeyTable rows={found} testId="keys-found" caption="Keys found, newest first" />
          )}
        </section>
      ) : null}

      <h2 className="mb-1 text-[15px] font-semibold">Uncertain: intent without completion</h2>
      <p className="mb-2 text-[13px] text-muted">
        Started, never reported back, and the downstream cannot deduplicate: check whether the side effect happened.
      </p>
      {expired.uncertain.length === 0 ? (
        <EmptyState title="No uncertain keys" testId="keys-uncertain-empty" />
      ) : (
        <KeyTable rows={expired.uncertain} testId="keys-uncertain" caption="Uncertain keys, oldest first" />
      )}

      <h2 className="mb-1 mt-6 text-[15px] font-semibold">In progress past expiry</h2>
      <p className="mb-2 text-[13px] text-muted">
        Their holder went quiet; the downstream deduplicates, so the next delivery takes over.
      </p>
      {expired.takeover.length === 0 ? (
        <EmptyState title="None waiting for takeover" testId="keys-takeover-empty" />
      ) : (
        <KeyTable rows={expired.takeover} testId="keys-takeover" caption="Keys in progress past expiry" />
      )}

      <h2 className="mb-1 mt-6 text-[15px] font-semibold">Recent payload mismatches</h2>
      {mismatches.length === 0 ? (
        <EmptyState title="No payload mismatches" testId="keys-mismatch-empty" />
      ) : (
        <ul className="text-[13px]" data-testid="keys-mismatches">
          {mismatches.map((hold) => (
            <li key={hold.id}>
              {when(hold.openedAt)} · {visibleText(hold.detail)} ({hold.status})
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
