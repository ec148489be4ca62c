import type { Metadata } from 'next';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { EmptyState } from '@/components/ui/empty-state';
import { LongText } from '@/components/ui/long-text';
import { PageHeader } from '@/components/ui/page-header';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { formatCount } from '@/lib/console/format';
import type { SpanOutcome } from '@holdfast/engine/db/schema';
import { getSpanIngest, type ServiceIngest } from '@/lib/queries/span-ingest';
import { readConsole } from '@/lib/server/read-source/read-console';
import { readNotice } from '@/lib/server/read-source/notice';
import { requirePerson } from '@/lib/server/session';
import {
  DEFAULT_TIME_WINDOW,
  resolveTimeWindow,
  timeWindowLabel,
  timeWindowName,
} from '@holdfast/protocol/time-window';

export const metadata: Metadata = { title: 'Ingest' };
export const dynamic = 'force-dynamic';

/** Each outcome's column and what it means, in the order the spans are judged (packages/engine/src/traces/ingest-tally.ts). */
const OUTCOMES: { outcome: SpanOutcome; label: string; meaning: string }[] = [
  { outcome: 'call', label: 'Calls', meaning: 'model and tool calls counted as attempts of a step' },
  {
    outcome: 'http_try',
    label: 'HTTP tries',
    meaning: "HTTP client spans under a model call: the client's own retries",
  },
  {
    outcome: 'run',
    label: 'Runs',
    meaning: "agents' runs (invoke_agent, ai.generateText, AGENT, CHAIN, workflows): listed below, never as steps",
  },
  {
    outcome: 'run_part',
    label: 'Run steps',
    meaning: "a run's inner steps (agent_step): their calls are counted, they are not",
  },
  {
    outcome: 'rejected',
    label: 'Refused',
    meaning: "refused and named in the answer's partial_success: no agent, another agent's task, outside the kept days",
  },
  {
    outcome: 'ignored_operation',
    label: 'Other operations',
    meaning: 'a gen_ai.operation.name not counted (HOLDFAST_TRACES_OPERATIONS): the sample names it',
  },
  {
    outcome: 'ignored_unrecognised',
    label: 'Unrecognised',
    meaning:
      'attributes of a call convention (gen_ai.*, llm.*, ai.*, traceloop.*) but no operation Holdfast reads: the sample shows its keys',
  },
  { outcome: 'other', label: 'Not calls', meaning: 'HTTP, database and framework spans: received and not counted' },
];

/**
 * What became of the spans each service exported: counted as calls, tries or runs, refused, or ignored and why,
 * with a sample of each ignored shape; and each agent's runs. Someone who points an exporter at Holdfast and sees
 * no steps reads here why.
 */
export default async function IngestPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePerson();
  const asked = (await searchParams).window;
  const parsed = timeWindowName.safeParse(asked);
  const window = parsed.success ? parsed.data : DEFAULT_TIME_WINDOW;
  const now = new Date();
  const { value: ingest, source } = await readConsole((db) => getSpanIngest(db, resolveTimeWindow(window, now)));

  return (
    <>
      <PageHeader
        title="Ingest"
        description={`What became of the spans exporters sent to /v1/traces, per service (the resource's service.name), from ${ingest.from.toISOString().slice(0, 16)} UTC (a whole hour). Counted per delivery: a batch sent twice counts twice, its spans are stored once.`}
      />
      <ReadSourceNotice notice={readNotice(source)} />
      <div className="mb-4">
        <SegmentedLinks
          label="Time window"
          links={timeWindowName.options.map((name) => ({
            href: `/ingest?window=${name}`,
            label: name,
            title: timeWindowLabel[name],
            active: window === name,
          }))}
        />
      </div>
      {parsed.success || asked === undefined ? null : (
        <p className="mb-3 text-[13px] text-muted" role="status">
          Unknown window &quot;{String(asked).slice(0, 40)}&quot;: showing {DEFAULT_TIME_WINDOW}.
        </p>
      )}

      <section aria-labelledby="services-heading" className="mb-6">
        <h2 id="services-heading" className="mb-2 text-[13px] font-semibold">
          Spans by service
        </h2>
        {ingest.services.length === 0 ? (
          <EmptyState title="No spans received in this window" testId="ingest-empty">
            Point an OTLP/HTTP trace exporter at this server&apos;s /v1/traces with an API token of scope traces (see
            the OpenTelemetry page of the docs). Within a minute of its first batch, its service shows here with what
            became of each span.
          </EmptyState>
        ) : (
          <ServicesTable services={ingest.services} />
        )}
      </section>

      <section aria-labelledby="runs-heading" className="mb-6">
        <h2 id="runs-heading" className="mb-2 text-[13px] font-semibold">
          Agent runs
        </h2>
        <p className="mb-2 text-[12px] text-muted">
          A run is one turn of an agent as its instrumentation reports it. Its model and tool calls are the attempts on
          the Steps page; a run is never a step, and a failed run is not a second failure of its call.
        </p>
        {ingest.runs.length === 0 ? (
          <EmptyState title="No agent runs in this window" testId="runs-empty">
            Runs come from spans such as invoke_agent, an AI SDK ai.generateText or an OpenInference AGENT.
          </EmptyState>
        ) : (
          <Table data-testid="runs-table">
            <caption className="sr-only">Agent runs in the window, most runs first</caption>
            <thead>
              <tr>
                <HeaderCell>Agent</HeaderCell>
                <HeaderCell numeric>Runs</HeaderCell>
                <HeaderCell numeric>Failed</HeaderCell>
                <HeaderCell numeric>Median</HeaderCell>
                <HeaderCell>Last run</HeaderCell>
                <HeaderCell>Last failure</HeaderCell>
              </tr>
            </thead>
            <tbody>
              {ingest.runs.map((run) => (
                <tr key={run.agent}>
                  <Cell className="min-w-40 font-mono [overflow-wrap:anywhere]">{run.agent}</Cell>
                  <Cell numeric>{formatCount(run.runs)}</Cell>
                  <Cell numeric>{formatCount(run.failed)}</Cell>
                  <Cell numeric>{formatDuration(run.medianMs)}</Cell>
                  <Cell className="whitespace-nowrap">
                    <Moment value={run.lastRunAt} />
                  </Cell>
                  <Cell className="min-w-48 max-w-[32rem]">
                    {run.lastError ? (
                      <LongText text={run.lastError} lines={2} />
                    ) : (
                      <span className="text-muted">none</span>
                    )}
                  </Cell>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </section>

      <section aria-labelledby="outcomes-heading">
        <h2 id="outcomes-heading" className="mb-2 text-[13px] font-semibold">
          What each column counts
        </h2>
        <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-[12px] sm:grid-cols-[max-content_1fr]">
          {OUTCOMES.map(({ outcome, label, meaning }) => (
            <div key={outcome} className="contents">
              <dt className="font-medium">{label}</dt>
              <dd className="text-muted">{meaning}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-2 text-[12px] text-muted">
          The same counts since the start are the counter holdfast_trace_spans_total (labels service and outcome) at
          /metrics. At most 500 services are counted apart; the rest as (other).
        </p>
      </section>
    </>
  );
}

function ServicesTable({ services }: { services: ServiceIngest[] }) {
  return (
    <Table data-testid="ingest-table">
      <caption className="sr-only">Spans received per service and what became of them</caption>
      <thead>
        <tr>
          <HeaderCell>Service</HeaderCell>
          <HeaderCell numeric>Received</HeaderCell>
          {OUTCOMES.map(({ outcome, label, meaning }) => (
            <HeaderCell key={outcome} numeric title={meaning}>
              {label}
            </HeaderCell>
          ))}
          <HeaderCell>Last batch</HeaderCell>
        </tr>
      </thead>
      <tbody>
        {services.map((service) => (
          <ServiceRows key={service.service} service={service} />
        ))}
      </tbody>
    </Table>
  );
}

function ServiceRows({ service }: { service: ServiceIngest }) {
  const samples = (['ignored_operation', 'ignored_unrecognised'] as const)
    .map((outcome) => ({ outcome, sample: service.samples[outcome] }))
    .filter((entry) => entry.sample !== undefined);
  const nothingCounted = service.byOutcome.call === 0 && service.byOutcome.run === 0;
  return (
    <>
      <tr data-testid="ingest-service">
        <Cell className="min-w-40 font-mono [overflow-wrap:anywhere]">{service.service}</Cell>
        <Cell numeric>{formatCount(service.received)}</Cell>
        {OUTCOMES.map(({ outcome }) => (
          <Cell key={outcome} numeric className={service.byOutcome[outcome] === 0 ? 'text-muted' : undefined}>
            {formatCount(service.byOutcome[outcome])}
          </Cell>
        ))}
        <Cell className="whitespace-nowrap">
          <Moment value={service.lastSeenAt} />
        </Cell>
      </tr>
      {samples.length > 0 || nothingCounted ? (
        <tr>
          <Cell colSpan={OUTCOMES.length + 3} className="bg-surface-raised text-[12px]">
            {/* Kept in view while the wide table scrolls sideways on a narrow screen, and wrapped there. */}
            <div className="sticky left-3 max-w-[calc(100vw-4rem)] md:max-w-none">
              {nothingCounted ? (
                <p className="mb-1 font-medium" data-testid="ingest-nothing-counted">
                  Nothing from this service became an attempt or a run.{' '}
                  {samples.length > 0
                    ? 'Its spans look like calls Holdfast does not read yet: the sample below shows their shape.'
                    : 'None of its spans carries GenAI attributes: is the model client instrumented?'}
                </p>
              ) : null}
              {samples.map(({ outcome, sample }) => (
                <p key={outcome} className="[overflow-wrap:anywhere]" data-testid="ingest-sample">
                  <span className="text-muted">
                    {OUTCOMES.find((entry) => entry.outcome === outcome)!.label}, last seen:{' '}
                  </span>
                  <span className="font-mono">{sample!.name}</span>
                  {sample!.operation ? (
                    <>
                      {' '}
                      (operation <span className="font-mono">{sample!.operation}</span>)
                    </>
                  ) : null}
                  {sample!.keys.length > 0 ? (
                    <>
                      <span className="text-muted"> with </span>
                      <span className="font-mono">{sample!.keys.join(', ')}</span>
                    </>
                  ) : null}
                </p>
              ))}
            </div>
          </Cell>
        </tr>
      ) : null}
    </>
  );
}

function formatDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}
