import type { Metadata } from 'next';
import Link from 'next/link';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { PageHeader } from '@/components/ui/page-header';
import { Select } from '@/components/ui/select';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { decide, describeBrakeRefusals, type DeadLetterFilter } from '@/lib/core';
import {
  deadLettersFilterLabels,
  deadLettersHref,
  deadLettersUrlFilter,
  deadLettersUrlPage,
  toDeadLetterFilter,
} from '@/lib/console/filters/dead-letters';
import { readFilter } from '@/lib/console/read-filter';
import { errorClasses } from '@/lib/db/schema';
import { corePolicyFrom, getEnvironment } from '@/lib/env';
import { formatCount } from '@/lib/console/format';
import { deadLetterFilterChoices, listBulkRedrives, listPendingDeadLetters } from '@/lib/queries/dead-letters';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { FilterNotices } from '../filter-notices';
import { brakeLabels, describeBrakes } from './brake-labels';
import { BulkRedrivePanel, BulkRedriveProgress } from './bulk-redrive-panel';
import { DeadLettersPager } from './dead-letters-pager';
import { DeadLettersTable } from './dead-letters-table';

const LIST_HEADING_ID = 'dead-letters-heading';

export const metadata: Metadata = { title: 'Dead letters' };
export const dynamic = 'force-dynamic';

export default async function DeadLettersPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const params = await searchParams;
  const { filter: asked, notices: filterNotices } = readFilter(deadLettersUrlFilter, params);
  const { filter: at, notices: pageNotices } = readFilter(deadLettersUrlPage, params);
  const filter = toDeadLetterFilter(asked);
  const db = getDb();
  const now = new Date();
  const { redriveBrakes } = corePolicyFrom(getEnvironment());
  const [page, choices, runs] = await Promise.all([
    listPendingDeadLetters(db, filter, { brakes: redriveBrakes, now }, at),
    deadLetterFilterChoices(db),
    listBulkRedrives(db),
  ]);
  const { rows, total, firstIndex } = page;
  const notices = [
    ...filterNotices,
    ...pageNotices,
    ...(page.ignoredCursor
      ? [
          `Ignored ${page.ignoredCursor}=“${at[page.ignoredCursor]}”: no such dead letter, so the list starts at the first page`,
        ]
      : []),
  ];
  const redrive = decide(person, 'dead_letter.redrive');
  const canOverride = decide(person, 'dead_letter.redrive_override').allowed;
  const filtered = Object.values(filter).some((value) => value !== undefined);

  return (
    <>
      <PageHeader
        title="Dead letters"
        description={`Work whose retries ran out. Redrive it once the cause is fixed: completed steps replay, the failed one runs again. ${describeBrakes(redriveBrakes)}`}
      />

      <form
        method="get"
        className="mb-4 flex flex-wrap items-end gap-3"
        aria-label="Filter dead letters"
        data-testid="dead-letter-filters"
      >
        {(
          [
            ['queue', choices.queues],
            ['agent', choices.agents],
            ['step', choices.steps],
          ] as const
        ).map(([name, values]) => (
          <Field key={name} label={deadLettersFilterLabels[name]}>
            <Select name={name} defaultValue={filter[name] ?? ''}>
              <option value="">Any</option>
              {values.map((value) => (
                <option key={value}>{value}</option>
              ))}
            </Select>
          </Field>
        ))}
        <Field label={deadLettersFilterLabels.errorClass}>
          <Select name="errorClass" defaultValue={filter.errorClass ?? ''}>
            <option value="">Any</option>
            {errorClasses.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </Select>
        </Field>
        <Field label={deadLettersFilterLabels.search}>
          <Input type="search" name="search" defaultValue={filter.search ?? ''} />
        </Field>
        <Field label={deadLettersFilterLabels.minAttempts}>
          <Input type="number" name="minAttempts" min={0} defaultValue={filter.minAttempts ?? ''} className="w-24" />
        </Field>
        <Field label={deadLettersFilterLabels.minSpendUsd}>
          <Input
            type="number"
            name="minSpendUsd"
            min={0}
            step="any"
            defaultValue={filter.minSpendMicros === undefined ? '' : filter.minSpendMicros / 1_000_000}
            className="w-28"
          />
        </Field>
        <Field label={deadLettersFilterLabels.minAgeHours}>
          <Input
            type="number"
            name="minAgeHours"
            min={0}
            step="any"
            defaultValue={filter.minAgeHours ?? ''}
            className="w-28"
          />
        </Field>
        <Button type="submit" size="md">
          Apply
        </Button>
        {filtered ? (
          <Link href={deadLettersHref({})} className="text-[13px] text-accent hover:underline">
            Clear filters
          </Link>
        ) : null}
      </form>
      <FilterNotices notices={notices} />

      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 id={LIST_HEADING_ID} tabIndex={-1} className="text-[15px] font-semibold focus:outline-none">
            Pending dead letters
          </h2>
          <p className="text-[13px] text-muted" data-testid="dead-letter-count">
            {rows.length > 0
              ? `Showing ${formatCount(firstIndex)}–${formatCount(firstIndex + rows.length - 1)} of ${formatCount(total)} pending${filtered ? ' matching' : ''}, oldest first`
              : `${formatCount(total)} pending${filtered ? ' matching' : ''}`}
          </p>
        </div>
        {redrive.allowed ? (
          <BulkRedrivePanel filter={filter} matching={total} brakeLabels={brakeLabels(redriveBrakes)} />
        ) : (
          <p className="text-[12px] text-muted">Bulk redrive: {redrive.reason}.</p>
        )}
      </div>

      {rows.length === 0 ? (
        <EmptyState
          title={filtered ? 'No pending dead letter matches these filters' : 'No pending dead letters'}
          testId="dead-letters-empty"
        >
          Work lands here when its retries, budget or time run out, or it fails permanently.
        </EmptyState>
      ) : (
        <>
          <DeadLettersTable
            rows={rows.map((letter) => ({
              id: letter.id,
              taskId: letter.taskId,
              queue: letter.queue,
              agent: letter.agent,
              step: letter.step,
              reason: letter.reason,
              errorClass: letter.errorClass,
              lastError: letter.lastError,
              attempts: letter.attempts,
              spendMicros: letter.spendMicros,
              createdAt: letter.createdAt,
              brakedBy: letter.brakes.length > 0 ? describeBrakeRefusals(letter.brakes) : undefined,
            }))}
            now={now}
            headingId={LIST_HEADING_ID}
            refusal={redrive.allowed ? undefined : redrive.reason}
            canOverride={canOverride}
          />
          <DeadLettersPager
            filter={filter}
            firstId={rows[0]?.id}
            lastId={rows.at(-1)?.id}
            hasPrevious={page.hasPrevious}
            hasNext={page.hasNext}
          />
        </>
      )}

      <h2 className="mb-2 mt-8 text-[15px] font-semibold">Bulk redrives</h2>
      {runs.length === 0 ? (
        <p className="text-[13px] text-muted">
          None yet. A bulk redrive is recorded here with who ran it, its filter and its counts.
        </p>
      ) : (
        <Table data-testid="bulk-redrives-table">
          <caption className="sr-only">Bulk redrives, newest first</caption>
          <thead>
            <tr>
              <HeaderCell>When</HeaderCell>
              <HeaderCell>Who</HeaderCell>
              <HeaderCell>Filter</HeaderCell>
              <HeaderCell>Reason</HeaderCell>
              <HeaderCell>Progress</HeaderCell>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id} className="align-top">
                <Cell className="whitespace-nowrap">
                  <Moment value={run.requestedAt} />
                </Cell>
                <Cell>{run.requestedBy}</Cell>
                <Cell className="max-w-xs font-mono text-[12px] [overflow-wrap:anywhere]">
                  {describeFilter(run.filter as DeadLetterFilter)}
                </Cell>
                <Cell className="max-w-xs [overflow-wrap:anywhere]">{run.reason}</Cell>
                <Cell className="min-w-72">
                  {run.status === 'running' ? (
                    <BulkRedriveProgress runId={run.id} />
                  ) : (
                    <span className="text-[12px] tabular-nums">
                      {run.status}: {formatCount(run.processed)} of {formatCount(run.total)} done,{' '}
                      {formatCount(run.redriven)} redriven, {formatCount(run.skipped)} skipped
                      {run.cancelledBy ? ` (cancelled by ${run.cancelledBy})` : ''}
                    </span>
                  )}
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </>
  );
}

function describeFilter(filter: DeadLetterFilter): string {
  const parts = Object.entries(filter).filter(([, value]) => value !== undefined && value !== '');
  return parts.length === 0 ? 'all pending' : parts.map(([name, value]) => `${name}=${String(value)}`).join(' ');
}
