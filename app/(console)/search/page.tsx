import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { NothingFound } from '@/components/layout/nothing-found';
import { PageHeader } from '@/components/ui/page-header';
import { SearchBox } from '@/components/ui/search-box';
import { type SearchHit, searchById, searchKinds, SEARCH_LIMIT_PER_KIND, soleMatch } from '@/lib/queries/search';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readConsole } from '@/lib/server/read-source/read-console';
import { readNotice } from '@/lib/server/read-source/notice';
import { requirePerson } from '@/lib/server/session';
import { searchHitDetail, searchHitHref, searchKindLabels } from './search-links';
import { kindsToSearch, parseSearchInput } from './search-input';
import { VisibleText } from '@/components/ui/visible-text';

export const metadata: Metadata = { title: 'Search' };
export const dynamic = 'force-dynamic';

/**
 * Search by id: the one exact match (or the one thing found) is opened straight away;
 * several are listed by kind; none is said plainly, with the search box again.
 */
export default async function SearchPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePerson();
  const input = parseSearchInput((await searchParams).q);
  if (!input.ok)
    return (
      <>
        <PageHeader title="Search" />
        <p role="alert" data-testid="search-error" className="mb-3 text-[13px] text-danger">
          {input.message}
        </p>
        <SearchBox defaultValue={input.term} testId="search-again" label="Search again" className="max-w-xl" />
      </>
    );

  // Nothing found on the replica is looked for on the primary too: it may not have arrived there yet.
  const { value: hits, source } = await readConsole(
    async (db) => {
      const asked = await searchById(db, { term: input.term, kinds: kindsToSearch(input) });
      // `task:abc` found nothing as a task: it may be an id that itself starts with `task:`.
      return asked.length === 0 && input.kind ? searchById(db, { term: input.whole }) : asked;
    },
    { orPrimaryWhen: (found) => found.length === 0 },
  );
  const sole = soleMatch(hits);
  if (sole) redirect(searchHitHref(sole));
  if (hits.length === 0)
    return (
      <NothingFound title={`Nothing found for “${input.term}”`} searchTerm={input.term}>
        <p>
          No task, key, hold, dead letter or step has this id or an id starting with it. Hold and dead-letter ids are
          numbers; a step is <span className="font-mono">agent/step</span>.
        </p>
      </NothingFound>
    );

  return (
    <>
      <PageHeader
        title={`Search: ${input.term}`}
        description={`${hits.length} found. Up to ${SEARCH_LIMIT_PER_KIND} of each kind; type more of the id to narrow it.`}
      />
      <ReadSourceNotice notice={readNotice(source)} />
      <div data-testid="search-results" className="flex flex-col gap-5">
        {searchKinds.map((kind) => (
          <HitList key={kind} kind={kind} hits={hits.filter((hit) => hit.kind === kind)} />
        ))}
      </div>
    </>
  );
}

function HitList({ kind, hits }: { kind: SearchHit['kind']; hits: SearchHit[] }) {
  if (hits.length === 0) return null;
  return (
    <section aria-labelledby={`search-${kind}`} data-testid={`search-${kind}`}>
      <h2 id={`search-${kind}`} className="mb-1.5 text-[13px] font-semibold">
        {searchKindLabels[kind]}
      </h2>
      <ul className="divide-y divide-line rounded-lg border border-line bg-surface text-[13px]">
        {hits.map((hit) => (
          <li key={hit.id} className="flex flex-wrap items-baseline gap-x-3 px-3 py-2">
            <Link
              href={searchHitHref(hit)}
              className="min-w-0 font-mono text-[12px] text-accent hover:underline [overflow-wrap:anywhere]"
            >
              {hit.kind === 'hold' || hit.kind === 'dead_letter' ? `#${hit.id}` : <VisibleText text={hit.id} />}
            </Link>
            <span className="min-w-0 text-[12px] text-muted [overflow-wrap:anywhere]">
              <VisibleText text={searchHitDetail(hit)} />
            </span>
            {hit.exact ? <span className="text-[11px] font-medium text-ok">exact</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
