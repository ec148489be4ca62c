import type { Metadata } from 'next';
import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { LongText } from '@/components/ui/long-text';
import { Moment } from '@/components/ui/time';
import type { IdempotencyKey } from '@/lib/db/schema';
import { formatMicros } from '@/lib/console/format';
import { keyHref, keysFilter, keysFilterLabels, keysPageHref } from '@/lib/console/filters/keys';
import { keysetPosition } from '@/lib/console/filters/keyset-cursor';
import { readFilter } from '@/lib/console/read-filter';
import { findKeys, getKeyDetail, listExpiredInProgress, listRecentPayloadMismatches } from '@/lib/queries/keys';
import { requirePerson } from '@/lib/server/session';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readConsole } from '@/lib/server/console-reads';
import { readNotice } from '@/lib/console/read-notice';
import { FilterNotices } from '@/components/console/filter-notices';
import { KeysetPager, showingText } from '@/components/console/keyset-pager';
import { StepLink, TaskLink } from '../tasks/links';
import { VisibleText } from '@/components/ui/visible-text';

export const metadata: Metadata = { title: 'Keys' };
export const dynamic = 'force-dynamic';

const when = (moment: Date | null) => <Moment value={moment} precision="second" />;

/** Below 768 px each key is a stacked card (see the Holds page). */
const stack = {
  row: 'max-md:block max-md:border-b max-md:border-line max-md:py-2',
  cell: 'max-md:block max-md:border-0 max-md:py-0.5',
};

function KeyTable({ rows, testId, caption }: { rows: IdempotencyKey[]; testId: string; caption: string }) {
  return (
    <Table data-testid={testId} className="max-md:block">
      <caption className="sr-only">{caption}</caption>
      <thead className="max-md:sr-only">
        <tr>
          <HeaderCell>Key</HeaderCell>
          <HeaderCell>Status</HeaderCell>
          <HeaderCell>Task / step</HeaderCell>
          <HeaderCell>In progress until</HeaderCell>
          <HeaderCell>Kept until</HeaderCell>
        </tr>
      </thead>
      <tbody className="max-md:block">
        {rows.map((row) => (
          <tr key={row.key} className={stack.row}>
            <Cell className={`max-w-md font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
              <Link href={keyHref(row.key)} className="text-accent hover:underline">
                <VisibleText text={row.key} />
              </Link>
            </Cell>
            <Cell className={`font-mono text-[12px] ${stack.cell}`}>{row.status}</Cell>
            <Cell className={`max-w-xs font-mono text-[12px] [overflow-wrap:anywhere] ${stack.cell}`}>
              {row.taskId ? <TaskLink taskId={row.taskId} /> : '—'} /{' '}
              {row.step ? <StepLink agent={row.agent} step={row.step} /> : '—'}
            </Cell>
            <Cell className={`whitespace-nowrap ${stack.cell}`}>
              <span className="text-muted md:hidden">In progress until </span>
              {when(row.lockedUntil)}
            </Cell>
            <Cell className={`whitespace-nowrap ${stack.cell}`}>
              <span className="text-muted md:hidden">Kept until </span>
              {when(row.expiresAt)}
            </Cell>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Said when a fixed list shows fewer than there are, so it never stops silently. */
function LimitNote({ shown, total }: { shown: number; total: number }) {
  if (shown >= total) return null;
  return (
    <p className="mb-2 text-[12px] text-warn" data-testid="keys-list-limit">
      Showing the first {shown} of {total}: look them up by task or step above to see the rest.
    </p>
  );
}

export default async function KeysPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePerson();
  const { filter: search, notices, accepted } = readFilter(keysFilter, await searchParams);
  const searching = Boolean(search.key || search.taskId || search.step);
  const {
    value: [found, detail, expired, mismatches],
    source,
  } = await readConsole((db) =>
    Promise.all([
      searching ? findKeys(db, search, keysetPosition(search)) : Promise.resolve(undefined),
      search.show ? getKeyDetail(db, search.show) : Promise.resolve(undefined),
      listExpiredInProgress(db),
      listRecentPayloadMismatches(db),
    ]),
  );

  return (
    <>
      <PageHeader
        title="Keys"
        description="Derived idempotency keys: what each operation did, what is still in flight, and what nobody can vouch for."
      />
      <ReadSourceNotice notice={readNotice(source)} />
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
            <h2 id="key-detail" className="mb-2 font-mono text-[14px] font-semibold [overflow-wrap:anywhere]">
              <VisibleText text={detail.key.key} />
            </h2>
            <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-[13px] sm:grid-cols-[max-content_minmax(0,1fr)]">
              <dt className="text-muted">Status</dt>
              <dd data-testid="key-status">{detail.key.status}</dd>
              <dt className="text-muted">Payload hash</dt>
              <dd className="break-all font-mono text-[12px]">{detail.key.requestHash}</dd>
              <dt className="text-muted">Stored result</dt>
              <dd className="font-mono text-[12px]">
                {detail.key.result === null ? '—' : <LongText text={JSON.stringify(detail.key.result)} lines={3} />}
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
              <dd>{detail.key.taskId ? <TaskLink taskId={detail.key.taskId} /> : '—'}</dd>
              <dt className="text-muted">Step</dt>
              <dd>{detail.key.step ? <StepLink agent={detail.key.agent} step={detail.key.step} /> : '—'}</dd>
            </dl>
            <h3 className="mb-1 mt-4 text-[13px] font-semibold">Attempts under this key</h3>
            {detail.attempts.length === 0 ? (
              <p className="text-[13px] text-muted">None recorded.</p>
            ) : (
              <ul className="flex flex-col gap-1 text-[13px]" data-testid="key-attempts">
                {detail.attempts.map((attempt) => (
                  <li key={`${attempt.attemptNumber}-${attempt.startedAt.toISOString()}`}>
                    #{attempt.attemptNumber} {attempt.outcome} at {when(attempt.startedAt)},{' '}
                    {formatMicros(attempt.costMicros)}
                    {attempt.errorText ? (
                      <div className="text-[12px] text-muted">
                        {attempt.errorClass}: <LongText text={attempt.errorText} lines={2} />
                      </div>
                    ) : null}
                  </li>
                ))}
              </ul>
            )}
            <h3 className="mb-1 mt-4 text-[13px] font-semibold">Holds</h3>
            {detail.holds.length === 0 ? (
              <p className="text-[13px] text-muted">None.</p>
            ) : (
              <ul className="flex flex-col gap-1 text-[13px]">
                {detail.holds.map((hold) => (
                  <li key={hold.id}>
                    {hold.reason} ({hold.status}), owner <VisibleText text={hold.owner} />:{' '}
                    <LongText text={hold.detail} lines={2} />
                  </li>
                ))}
              </ul>
            )}
          </section>
        ) : (
          <section
            aria-labelledby="no-such-key"
            className="mb-5 rounded-lg border border-dashed border-line bg-surface px-4 py-3"
            data-testid="no-such-key"
          >
            <h2 id="no-such-key" className="text-[14px] font-semibold">
              No such key
            </h2>
            <p className="text-[13px] text-muted [overflow-wrap:anywhere]">
              No key {search.show}: it never existed, or it expired and was swept. Look it up by its start, its task or
              its step above.
            </p>
          </section>
        )
      ) : null}

      {found ? (
        <section aria-label="Keys found" className="mb-6">
          <h2 className="mb-2 text-[15px] font-semibold">
            Found{' '}
            <span className="text-[13px] font-normal text-muted" data-testid="keys-showing">
              · {showingText(found)}
            </span>
          </h2>
          {found.rows.length === 0 ? (
            <EmptyState title="No key matches" testId="keys-none-found" />
          ) : (
            <KeyTable rows={found.rows} testId="keys-found" caption="Keys found, most recently changed first" />
          )}
          <KeysetPager
            page={found}
            label="Pages of keys found"
            testId="keys-pager"
            hrefFor={(side, cursor) => keysPageHref(accepted, { side, cursor })}
          />
        </section>
      ) : null}

      <h2 className="mb-1 text-[15px] font-semibold">Uncertain: intent without completion</h2>
      <p className="mb-2 text-[13px] text-muted">
        Started, never reported back, and the downstream cannot deduplicate: check whether the side effect happened.
      </p>
      <LimitNote shown={expired.uncertain.length} total={expired.totals.uncertain} />
      {expired.uncertain.length === 0 ? (
        <EmptyState title="No uncertain keys" testId="keys-uncertain-empty" />
      ) : (
        <KeyTable rows={expired.uncertain} testId="keys-uncertain" caption="Uncertain keys, oldest first" />
      )}

      <h2 className="mb-1 mt-6 text-[15px] font-semibold">In progress past expiry</h2>
      <p className="mb-2 text-[13px] text-muted">
        Their holder went quiet; the downstream deduplicates, so the next delivery takes over.
      </p>
      <LimitNote shown={expired.takeover.length} total={expired.totals.takeover} />
      {expired.takeover.length === 0 ? (
        <EmptyState title="None waiting for takeover" testId="keys-takeover-empty" />
      ) : (
        <KeyTable rows={expired.takeover} testId="keys-takeover" caption="Keys in progress past expiry" />
      )}

      <h2 className="mb-1 mt-6 text-[15px] font-semibold">Recent payload mismatches</h2>
      <LimitNote shown={mismatches.rows.length} total={mismatches.total} />
      {mismatches.rows.length === 0 ? (
        <EmptyState title="No payload mismatches" testId="keys-mismatch-empty" />
      ) : (
        <ul className="text-[13px]" data-testid="keys-mismatches">
          {mismatches.rows.map((hold) => (
            <li key={hold.id}>
              {when(hold.openedAt)} ·{' '}
              {hold.itemType === 'key' ? (
                <Link
                  href={keyHref(hold.itemId)}
                  className="font-mono text-[12px] text-accent hover:underline [overflow-wrap:anywhere]"
                >
                  <VisibleText text={hold.itemId} />
                </Link>
              ) : hold.itemType === 'task' ? (
                <TaskLink taskId={hold.itemId} />
              ) : (
                <>
                  {hold.itemType}:<VisibleText text={hold.itemId} />
                </>
              )}{' '}
              · <LongText text={hold.detail} lines={2} /> ({hold.status})
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
