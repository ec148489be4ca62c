import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { DataSpanNote } from '@/components/console/data-span-note';
import { OwnerName } from '@/components/console/owner-name';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { VisibleText } from '@/components/ui/visible-text';
import { stepsExportHref, stepsViewHref } from '@/lib/console/filter-forms/steps';
import { parseStepsView } from '@/lib/filters/steps';
import { getAgentRows } from '@/lib/queries/agents-page';
import { readDataBegins } from '@/lib/queries/data-span';
import { inOneSnapshot } from '@/lib/queries/one-snapshot';
import { readStepFigures } from '@/lib/queries/step-figures';
import { getRefusedOwnerDeclaration, getStepOwners } from '@/lib/queries/step-owners';
import { getStepCostSources, getStepSources } from '@/lib/queries/step-sources';
import { getCostSourceMix } from '@/lib/queries/cost-source-mix';
import { getAgentRuns } from '@/lib/queries/span-ingest';
import { getEnvironment } from '@holdfast/engine/env';
import { CostSourceMixSection } from '../../steps/[agent]/[step]/cost-source-mix';
import { AgentRuns } from './agent-runs';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { decodeRouteParam } from '@holdfast/engine/core';
import { DEFAULT_TIME_WINDOW, timeWindowLabel, timeWindowName } from '@holdfast/protocol/time-window';
import { StepHeadline } from '../../steps/[agent]/[step]/step-headline';
import { StepsTable } from '../../steps/steps-table';
import { agentHref } from '../agent-href';
import { Waiting } from '../agents-table';

export const dynamic = 'force-dynamic';

interface Props {
  params: Promise<{ agent: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export async function generateMetadata({ params }: Pick<Props, 'params'>): Promise<Metadata> {
  const agent = decodeRouteParam((await params).agent);
  return { title: agent ? `${agent} · Agents` : 'Agent' };
}

/** One agent: what it cost over the window against the one before, who owns it, what waits, and its steps. */
export default async function AgentPage({ params, searchParams }: Props) {
  await requirePerson();
  const agent = decodeRouteParam((await params).agent);
  if (agent === undefined) notFound();
  const now = new Date();
  const view = { ...parseStepsView(await searchParams, now), agent };
  const window = view.window === 'custom' ? DEFAULT_TIME_WINDOW : view.window;
  const {
    value: [[row], steps, dataBegins],
  } = await readConsole((db) =>
    inOneSnapshot(db, (snapshot) =>
      Promise.all([
        getAgentRows(snapshot, { ...view.range, agent }, now),
        readStepFigures(snapshot, { ...view.range, agent }, { previousWindow: true }),
        readDataBegins(snapshot),
      ]),
    ),
  );
  const retentionDays = getEnvironment().HOLDFAST_ATTEMPT_RETENTION_DAYS;
  const rawFloor = new Date(now.getTime() - retentionDays * 86_400_000);
  const {
    value: [owners, sources, costSources, costMix, [runs], refusedOwner],
  } = await readConsole((db) =>
    Promise.all([
      getStepOwners(db, steps),
      getStepSources(db, steps),
      getStepCostSources(db, steps),
      getCostSourceMix(db, { ...view.range, agent, rawFloor }),
      getAgentRuns(db, view.range, agent),
      getRefusedOwnerDeclaration(db, agent),
    ]),
  );

  return (
    <>
      <PageHeader
        title={agent}
        description="What this agent ran, retried and spent over the window, against the window before, and its steps."
        actions={
          <SegmentedLinks
            label="Time window"
            links={timeWindowName.options.map((name) => ({
              href: agentHref(agent, name),
              label: name,
              title: timeWindowLabel[name],
              active: view.window === name,
            }))}
          />
        }
      />
      <p className="mb-3 text-[13px]">
        <Link href={`/agents?window=${window}`} className="text-accent hover:underline">
          All agents
        </Link>
      </p>
      <DataSpanNote range={view.range} dataBegins={dataBegins} />
      {row ? (
        <>
          <dl
            className="mb-4 flex flex-wrap gap-x-6 gap-y-1 rounded-lg border border-line bg-surface px-4 py-3 text-[13px]"
            data-testid="agent-facts"
          >
            <div>
              <dt className="inline text-muted">Owner </dt>
              <dd className="inline">
                <OwnerName
                  owner={row.owner}
                  noneText="none named yet (an admin names one on any of its steps' pages)"
                />
              </dd>
              {refusedOwner ? (
                <dd className="text-[12px] text-warn [overflow-wrap:anywhere]" data-testid="agent-refused-owner">
                  its spans declare holdfast.owner &ldquo;
                  <VisibleText text={refusedOwner} />
                  &rdquo;, which names no team or person (team:&lt;name&gt; or person:&lt;email&gt;): not taken
                </dd>
              ) : null}
              {row.owner.contact ? (
                <dd className="text-[12px] text-muted [overflow-wrap:anywhere]">
                  on call: <VisibleText text={row.owner.contact} />
                </dd>
              ) : null}
            </div>
            <div>
              <dt className="inline text-muted">Waiting for a person </dt>
              <dd className="inline" data-testid="agent-waiting">
                <Waiting agent={agent} waiting={row.waiting} />
              </dd>
            </div>
          </dl>
          <StepHeadline
            figures={{
              ...row,
              step: '',
              failuresByClass: {},
              latencyP50Ms: null,
              latencyP95Ms: null,
              retrySpendChangeMicros: null,
            }}
            asOf={now}
          />
          <h2 className="mb-2 text-[14px] font-medium">Its steps, most retry spend first</h2>
          <StepsTable
            steps={steps}
            view={view}
            anomalies={new Map()}
            sources={sources}
            costSources={costSources}
            owners={owners}
          />
          <p className="mt-2 text-[13px]">
            <a href={stepsExportHref(view)} download className="text-accent underline" data-testid="agent-steps-export">
              Export its steps as CSV
            </a>
            {' · '}
            {/* The Steps list filtered to this agent: its subtotal, and its filters (cost source, owner) to go on. */}
            <Link href={stepsViewHref(view, {})} className="text-accent underline" data-testid="agent-steps-link">
              Its steps on the Steps page
            </Link>
          </p>
          <AgentRuns runs={runs} />
          <CostSourceMixSection mix={costMix} retentionDays={retentionDays} estimate={null} of="this agent's steps" />
        </>
      ) : (
        <EmptyState title="No attempts of this agent in this window" testId="agent-empty">
          Try a longer window, or check its name on the{' '}
          <Link href={`/agents?window=30d`} className="text-accent underline">
            Agents
          </Link>{' '}
          page.
        </EmptyState>
      )}
    </>
  );
}
