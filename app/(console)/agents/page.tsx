import type { Metadata } from 'next';
import { DataSpanNote } from '@/components/console/data-span-note';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { parseStepsView } from '@/lib/filters/steps';
import { getAgentRows } from '@/lib/queries/agents-page';
import { readDataBegins } from '@/lib/queries/data-span';
import { inOneSnapshot } from '@/lib/queries/one-snapshot';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { ownersOf } from '@holdfast/engine/core';
import Link from 'next/link';
import { FilterNotices } from '@/components/console/filter-notices';
import { DEFAULT_TIME_WINDOW, timeWindowLabel, timeWindowName } from '@holdfast/protocol/time-window';
import { AgentsTable } from './agents-table';
import { FleetTotal } from './fleet-total';

export const metadata: Metadata = { title: 'Agents' };
export const dynamic = 'force-dynamic';

/** What each agent costs: its steps' figures summed, against the window before, with its owner and what waits. */
export default async function AgentsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const now = new Date();
  const view = parseStepsView(await searchParams, now);
  const window = view.window === 'custom' ? DEFAULT_TIME_WINDOW : view.window;
  const {
    value: [everyAgent, dataBegins],
  } = await readConsole((db) =>
    inOneSnapshot(db, (snapshot) => Promise.all([getAgentRows(snapshot, view.range, now), readDataBegins(snapshot)])),
  );
  // Mine: the agents my teams or I answer for (their owner, as the agents' rows name it).
  const mine = new Set(ownersOf(person));
  const agents =
    view.owner === 'mine'
      ? everyAgent.filter((row) => mine.has(row.owner.owner ?? ''))
      : view.owner
        ? everyAgent.filter((row) => row.owner.owner === view.owner)
        : everyAgent;
  const minute = (moment: Date) => moment.toISOString().slice(0, 16).replace('T', ' ');
  return (
    <>
      <PageHeader
        title="Agents"
        description={`What each agent ran, retried and spent from ${minute(view.range.from)} to ${minute(view.range.to)} UTC, each figure against the window before; who owns it, and what of its work waits for a person now.`}
        actions={
          <SegmentedLinks
            label="Time window"
            links={timeWindowName.options.map((name) => ({
              href: `/agents?window=${name}${view.owner ? `&owner=${encodeURIComponent(view.owner)}` : ''}`,
              label: name,
              title: timeWindowLabel[name],
              active: view.window === name,
            }))}
          />
        }
      />
      <nav aria-label="Whose agents" className="mb-3 flex gap-3 text-[13px]" data-testid="agents-owner-links">
        {[
          { label: 'All agents', owner: undefined },
          { label: 'My agents', owner: 'mine' },
        ].map((choice) => (
          <Link
            key={choice.label}
            href={`/agents?window=${window}${choice.owner ? `&owner=${choice.owner}` : ''}`}
            aria-current={view.owner === choice.owner ? 'true' : undefined}
            className="text-accent hover:underline aria-[current]:font-medium aria-[current]:text-ink aria-[current]:no-underline"
          >
            {choice.label}
          </Link>
        ))}
        {view.owner && view.owner !== 'mine' ? <span className="text-muted">owned by {view.owner}</span> : null}
      </nav>
      <FilterNotices notices={view.notices} />
      <DataSpanNote range={view.range} dataBegins={dataBegins} />
      {agents.length === 0 ? (
        <EmptyState
          title={view.owner ? 'None of these agents ran in this window' : 'No agent ran in this window'}
          testId="agents-empty"
        >
          {view.owner === 'mine'
            ? 'No agent your teams or you own ran in this window: owners are named on a step page, or declared by the agents themselves.'
            : 'Agents appear here once their steps record attempts. Try a longer window.'}
        </EmptyState>
      ) : (
        <>
          <FleetTotal agents={agents} />
          <AgentsTable agents={agents} window={window} />
        </>
      )}
    </>
  );
}
