import type { Metadata } from 'next';
import Link from 'next/link';
import { KeysetPager, showingText } from '@/components/console/keyset-pager';
import { ListFilters, ListPage, ListSection } from '@/components/console/list-page';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { keysFilter } from '@/lib/filters/keys';
import { keysFilterLabels, keysPageHref } from '@/lib/console/filter-forms/keys';
import { keysetPosition } from '@/lib/filters/keyset-cursor';
import { getEnvironment } from '@holdfast/engine/env';
import { readFilter } from '@/lib/filters/read-filter';
import { findKeys, getKeyDetail, listExpiredInProgress, listRecentPayloadMismatches } from '@/lib/queries/keys';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { KeyDetail } from './key-detail';
import { KeyTable, LimitNote } from './key-table';
import { PayloadMismatches } from './payload-mismatches';

export const metadata: Metadata = { title: 'Keys' };
export const dynamic = 'force-dynamic';

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
    <ListPage
      title="Keys"
      description="Derived idempotency keys: what each operation did, what is still in flight, and what nobody can vouch for."
      readSource={source}
      filters={
        <ListFilters label="Look up keys" testId="key-search" submitLabel="Look up">
          <Field label={keysFilterLabels.key}>
            <Input name="key" defaultValue={search.key ?? ''} className="min-w-64" />
          </Field>
          <Field label={keysFilterLabels.taskId}>
            <Input name="taskId" defaultValue={search.taskId ?? ''} />
          </Field>
          <Field label={keysFilterLabels.step}>
            <Input name="step" defaultValue={search.step ?? ''} />
          </Field>
        </ListFilters>
      }
      notices={notices}
    >
      {search.show ? <KeyDetail shown={search.show} detail={detail} /> : null}

      {found ? (
        <section aria-label="Keys found">
          <ListSection
            headingId="keys-found-heading"
            heading="Found"
            count={showingText(found)}
            countTestId="keys-showing"
            rowCount={found.rows.length}
            empty={{ title: 'No key matches', testId: 'keys-none-found' }}
            pager={
              <KeysetPager
                page={found}
                label="Pages of keys found"
                testId="keys-pager"
                hrefFor={(position) => keysPageHref(accepted, position)}
              />
            }
          >
            <KeyTable rows={found.rows} testId="keys-found" caption="Keys found, most recently changed first" />
          </ListSection>
        </section>
      ) : null}

      <ListSection
        headingId="keys-uncertain-heading"
        heading="Uncertain: intent without completion"
        note={
          <>
            Started, never reported back, and the downstream cannot deduplicate: check whether the side effect happened.
            Each is held for its owner after {getEnvironment().HOLDFAST_UNCERTAIN_ESCALATE_MINUTES} minutes, and settled
            there (run again, or leave as done):{' '}
            <Link href="/holds?reason=uncertain_outcome" className="text-accent underline">
              uncertain keys on Holds
            </Link>
            .
          </>
        }
        rowCount={expired.uncertain.length}
        empty={{ title: 'No uncertain keys', testId: 'keys-uncertain-empty' }}
      >
        <LimitNote shown={expired.uncertain.length} total={expired.totals.uncertain} />
        <KeyTable rows={expired.uncertain} testId="keys-uncertain" caption="Uncertain keys, oldest first" />
      </ListSection>

      <ListSection
        headingId="keys-takeover-heading"
        heading="In progress past expiry"
        note="Their holder went quiet; the downstream deduplicates, so the next delivery takes over."
        rowCount={expired.takeover.length}
        empty={{ title: 'None waiting for takeover', testId: 'keys-takeover-empty' }}
      >
        <LimitNote shown={expired.takeover.length} total={expired.totals.takeover} />
        <KeyTable rows={expired.takeover} testId="keys-takeover" caption="Keys in progress past expiry" />
      </ListSection>

      <ListSection
        headingId="keys-mismatches-heading"
        heading="Recent payload mismatches"
        rowCount={mismatches.rows.length}
        empty={{ title: 'No payload mismatches', testId: 'keys-mismatch-empty' }}
      >
        <LimitNote shown={mismatches.rows.length} total={mismatches.total} />
        <PayloadMismatches holds={mismatches.rows} />
      </ListSection>
    </ListPage>
  );
}
