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
  await requirePerson();
  const now = new Date();
  const view = parseStepsView(await searchParams, now);
  const window = view.window === 'custom' ? DEFAULT_TIME_WINDOW : view.window;
  const {
    value: [agents, dataBegins],
  } = await readConsole((db) =>
    inOneSnapshot(db, (snapshot) => Promise.all([getAgentRows(snapshot, view.range, now), readDataBegins(snapshot)])),
  );
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
              href: `/agents?window=${name}`,
              label: name,
              title: timeWindowLabel[name],
              active: view.window === name,
            }))}
          />
        }
      />
      <DataSpanNote range={view.range} dataBegins={dataBegins} />
      {agents.length === 0 ? (
        <EmptyState title="No agent ran in this window" testId="agents-empty">
          Agents appear here once their steps record attempts. Try a longer window.
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
