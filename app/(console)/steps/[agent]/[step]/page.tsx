import { getClock } from '@/lib/server/db';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { decodeRouteParam } from '@holdfast/engine/core';
import { StepTrendCharts } from '@/components/charts/step-trend-charts';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { getEnvironment } from '@holdfast/engine/env';
import { decide, readStepPolicy } from '@holdfast/engine/core';
import { getStepBreaker } from '@/lib/queries/breakers';
import { pausesCoveringStep } from '@/lib/queries/pauses';
import { getStepPage } from '@/lib/queries/step-page';
import { readConsole } from '@/lib/server/read-source/read-console';
import { requirePerson } from '@/lib/server/session';
import { parseStepsView } from '@/lib/filters/steps';
import { timeWindowLabel, timeWindowName } from '@holdfast/protocol/time-window';
import { stepDetailHref } from '@/lib/console/step-href';
import { CostSourceMixSection } from './cost-source-mix';
import { RecentFailures } from './recent-failures';
import { getErrorGroups } from '@/lib/queries/error-groups';
import { DEFAULT_TIME_WINDOW } from '@holdfast/protocol/time-window';
import { retrySpendEstimate } from './retry-spend-estimate';
import { StepBreaker } from './step-breaker';
import { StepPauses } from './step-pauses';
import { StepPolicySection } from './step-policy';
import { StepSources } from './step-sources';
import { StepOwnerSection } from './step-owner';
import { StepHeadline } from './step-headline';
import { eventMarks, StepEvents } from '@/components/console/chart-events';
import { getStepEvents } from '@/lib/queries/step-events';
import { readStepFigures } from '@/lib/queries/step-figures';
import { getNamedOwners, getStepOwner, listOwnerTeams } from '@/lib/queries/step-owners';
import { StepRangeForm } from './step-range-form';
import { STEP_ERROR_GROUPS_SHOWN, StepErrorGroups } from './step-error-groups';
import { DataSpanNote } from '@/components/console/data-span-note';
import { readDataBegins } from '@/lib/queries/data-span';

export const dynamic = 'force-dynamic';

interface Props {
  params: Promise<{ agent: string; step: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

/** The tab names the step, so that several open steps can be told apart. */
export async function generateMetadata({ params }: Pick<Props, 'params'>): Promise<Metadata> {
  const { agent, step } = await params;
  const [agentName, stepName] = [decodeRouteParam(agent), decodeRouteParam(step)];
  return { title: agentName && stepName ? `${stepName} · ${agentName}` : 'Step' };
}

export default async function StepDetailPage({ params, searchParams }: Props) {
  const person = await requirePerson();
  const { agent, step } = await params;
  // Bad percent-encoding or a NUL names no step: a 404, not a 500 from decoding or the database.
  const [agentName, stepName] = [decodeRouteParam(agent), decodeRouteParam(step)];
  if (agentName === undefined || stepName === undefined) notFound();
  const names = { agent: agentName, step: stepName };
  // The database's clock, as the actions that end pauses and ramps write by it: a page read just after one
  // judges the pause by the same clock (Node's may be a few milliseconds behind it).
  const now = getClock()();
  const view = parseStepsView(await searchParams, now);
  const retentionDays = getEnvironment().HOLDFAST_ATTEMPT_RETENTION_DAYS;
  const rawFloor = new Date(now.getTime() - retentionDays * 86_400_000);
  // A step the replica does not know yet is asked of the primary before it is called unknown.
  const { value: read } = await readConsole((db) => getStepPage(db, names, view.range, rawFloor), {
    orPrimaryWhen: (found) => found === undefined,
  });
  if (!read) notFound();
  const {
    value: [pauses, breaker, policy, dataBegins, errorGroups, owner, namedOwners, ownerTeams, [figures], events],
  } = await readConsole((db) =>
    Promise.all([
      pausesCoveringStep(db, names, now),
      getStepBreaker(db, names),
      readStepPolicy(db, names),
      readDataBegins(db),
      getErrorGroups(db, {
        window: view.window === 'custom' ? DEFAULT_TIME_WINDOW : view.window,
        now,
        filter: names,
        limit: STEP_ERROR_GROUPS_SHOWN,
      }),
      getStepOwner(db, names),
      getNamedOwners(db, names),
      listOwnerTeams(db),
      readStepFigures(db, { ...view.range, steps: [names] }, { previousWindow: true, latency: false }),
      getStepEvents(db, names, view.range),
    ]),
  );
  const { detail, sources, costMix } = read;
  const estimate = retrySpendEstimate(costMix, sources);
  // Spans show a step; they cannot steer it: the brakes and the policy say what they would need instead.
  const tracesOnly = sources.length > 0 && sources.every(({ source }) => source === 'traces');

  return (
    <>
      <PageHeader
        title={`${names.agent} · ${names.step}`}
        description="How this step's attempts, retries and failures moved over the window."
        actions={
          <SegmentedLinks
            label="Time window"
            links={timeWindowName.options.map((name) => ({
              href: stepDetailHref(names.agent, names.step, name),
              label: name,
              title: timeWindowLabel[name],
              active: view.window === name,
            }))}
          />
        }
      />
      <StepRangeForm
        path={stepDetailHref(names.agent, names.step)}
        range={view.range}
        custom={view.window === 'custom'}
      />
      <StepOwnerSection
        names={names}
        owner={owner}
        named={namedOwners}
        teams={ownerTeams}
        managing={decide(person, 'owner.manage')}
      />
      <DataSpanNote range={view.range} dataBegins={dataBegins} />
      {figures ? <StepHeadline figures={figures} asOf={now} /> : null}
      {detail.points.length === 0 ? (
        <EmptyState title="No attempts of this step in this window" testId="step-detail-empty">
          Try a longer window.
        </EmptyState>
      ) : (
        <StepTrendCharts
          points={detail.points}
          unit={detail.unit}
          range={{ from: view.range.from.toISOString(), to: view.range.to.toISOString() }}
          zoomPath={stepDetailHref(names.agent, names.step)}
          classesSeen={detail.classesSeen}
          retrySpendEstimated={estimate !== null}
          marks={eventMarks(events, detail.unit)}
        />
      )}
      <StepEvents events={events} />
      <StepPauses names={names} pauses={pauses} pausing={decide(person, 'step.pause')} tracesOnly={tracesOnly} />
      <StepBreaker breaker={breaker.breaker} history={breaker.history} />
      <StepSources sources={sources} />
      <StepPolicySection
        names={names}
        policy={policy}
        managing={decide(person, 'retry_policy.manage')}
        tracesOnly={tracesOnly}
      />
      <CostSourceMixSection mix={costMix} retentionDays={retentionDays} estimate={estimate} />
      <StepErrorGroups names={names} groups={errorGroups} now={now} customRange={view.window === 'custom'} />
      <h2 className="mb-2 mt-5 text-[13px] font-semibold">Latest failing attempts</h2>
      {detail.recentFailures.length === 0 ? (
        <p className="text-[13px] text-muted">No failures in this window.</p>
      ) : (
        <RecentFailures failures={detail.recentFailures} />
      )}
    </>
  );
}
