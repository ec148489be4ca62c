import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { BudgetBurnChart } from '@/components/charts/budget-burn-chart';
import { Fact } from '@/components/ui/fact';
import { PageHeader } from '@/components/ui/page-header';
import { Moment } from '@/components/ui/time';
import { formatCount, formatMicros, formatPercent } from '@/lib/console/format';
import { readBudgetBurn } from '@/lib/queries/budget-burn';
import { getSpendBudgets } from '@/lib/queries/spend-budgets';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { limitWords, scopeWords } from '../budget-format';
import { BudgetSpenders } from './budget-spenders';
import { forecastAtRecentRate } from './forecast';
import { RollingRunsOut } from '../rolling-runs-out';

export const metadata: Metadata = { title: 'Spend budget' };
export const dynamic = 'force-dynamic';

/** One budget's period under way: how far it has burned, by whom, how much on retries, and when it runs out. */
export default async function BudgetPage(props: { params: Promise<{ id: string }> }) {
  const [, { id }] = await Promise.all([requirePerson(), props.params]);
  const now = new Date();
  const db = getDb();
  const budget = (await getSpendBudgets(db, now)).find((candidate) => String(candidate.id) === id);
  if (!budget) notFound();
  const burn = await readBudgetBurn(db, budget, { start: budget.periodStart, now });
  const used = budget.spentMicros + budget.reservedMicros;
  const forecast = forecastAtRecentRate(budget, burn.recent, now);
  const enforced = budget.spentMicros - budget.seenMicros;
  const rolling = budget.period === 'rolling_hour';
  const points = burn.points.map((point) => ({
    bucket: point.at,
    spent: point.spentMicros / 1_000_000,
    retries: point.retrySpentMicros / 1_000_000,
  }));

  return (
    <>
      <PageHeader
        title={budget.name}
        description={`${scopeWords(budget)}; ${limitWords(budget)}; ${budget.onExhausted === 'stop' ? 'stops' : 'waits'} when spent.`}
      />
      <p className="mb-3 text-[12px]">
        <Link href="/settings/budgets" className="text-accent hover:underline">
          All spend budgets
        </Link>
        {budget.keptIn ? <span className="text-muted"> · kept in the budgets file {budget.keptIn}</span> : null}
      </p>
      <dl
        className="mb-4 grid grid-cols-2 gap-3 rounded-lg border border-line bg-surface p-3 text-[13px] md:grid-cols-3 xl:grid-cols-6"
        data-testid="budget-facts"
      >
        <Fact label={rolling ? 'Used in the last hour' : 'Used this period'}>
          {formatMicros(used)} of {formatMicros(budget.limitMicros)} ({formatPercent(used / budget.limitMicros)})
        </Fact>
        <Fact label="Spent">
          {formatMicros(budget.spentMicros)}
          {budget.reservedMicros > 0 ? `, ${formatMicros(budget.reservedMicros)} reserved` : ''}
        </Fact>
        <Fact label="Enforced / seen only">
          {formatMicros(enforced)} / {formatMicros(budget.seenMicros)}
        </Fact>
        <Fact label="Retries">
          {formatMicros(budget.retrySpentMicros)}
          {budget.spentMicros > 0 ? ` (${formatPercent(budget.retrySpentMicros / budget.spentMicros)} of spend)` : ''}
        </Fact>
        <Fact label="Begins refused">{formatCount(budget.refusals)}</Fact>
        <Fact label="Runs out">
          <span data-testid="budget-runs-out">
            {budget.period === 'rolling_hour' ? (
              <RollingRunsOut used={used} limit={budget.limitMicros} nextTurn={budget.periodEnd} />
            ) : forecast.kind === 'spent' ? (
              <span className="text-danger">
                spent; turns <Moment value={budget.periodEnd} />
              </span>
            ) : forecast.kind === 'at' ? (
              <>
                at the last hour&apos;s rate, <Moment value={forecast.at} />
              </>
            ) : (
              <>
                not before the period turns (<Moment value={budget.periodEnd} />)
              </>
            )}
          </span>
        </Fact>
      </dl>
      {points.length === 0 ? (
        <p
          className="mb-4 rounded-lg border border-line bg-surface p-3 text-[13px] text-muted"
          data-testid="budget-burn-empty"
        >
          Nothing spent under this budget since {rolling ? 'its window began' : 'its period began'} (
          <Moment value={budget.periodStart} />
          ).
        </p>
      ) : (
        <BudgetBurnChart
          points={points}
          unit={burn.unit}
          limitMicros={budget.limitMicros}
          summary={`${formatMicros(used)} used of ${formatMicros(budget.limitMicros)} ${rolling ? 'in the last hour' : 'since the period began'}`}
        />
      )}
      <BudgetSpenders spenders={burn.spenders} spentMicros={budget.spentMicros} />
      <p className="mt-3 max-w-prose text-[12px] text-muted">
        Read from{' '}
        {burn.source === 'rollups'
          ? 'the rolled-up figures, as the Steps page reads them'
          : 'the attempt log of the period'}
        . Attempts count in the period they began in
        {rolling ? ' (a rolling hour: in the five minutes they began in)' : ''}. Enforced is what begins reserved and
        finished under the budget; seen only is what Holdfast counted after the fact (reported attempts, spans) and
        could not refuse.
      </p>
    </>
  );
}
