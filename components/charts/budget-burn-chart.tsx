'use client';

import { Area, AreaChart, CartesianGrid, Legend, ReferenceLine, XAxis } from 'recharts';
import { formatMicros } from '@/lib/console/format';
import type { BucketUnit } from '@holdfast/protocol/time-window';
import { ChartFrame, chartTheme, timeAxisProps } from './chart-frame';
import { useBucketTime } from './chart-time';
import { valueScale } from './value-scale';

/** One bucket of the burn-down: spend by its end (all, and the retries' part), in dollars for the axis. */
export interface BurnChartPoint {
  bucket: string;
  spent: number;
  retries: number;
}

/** The spend drawn, and beneath it the retries' part of it. */
const BURN_SERIES = [
  { key: 'spent', name: 'Spent (cumulative)', opacity: 0.15 },
  { key: 'retries', name: 'of it retries', opacity: 0.25 },
] as const;

/**
 * A budget's period so far: spend accumulating bucket by bucket, the retries' part under it, and the limit as a
 * line, so how close the period runs to it reads at a glance.
 */
export function BudgetBurnChart({
  points,
  unit,
  limitMicros,
  summary,
}: {
  points: BurnChartPoint[];
  unit: BucketUnit;
  limitMicros: number;
  summary: string;
}) {
  const time = useBucketTime(unit);
  const limit = limitMicros / 1_000_000;
  // A limit far above the spend would flatten the curve to the axis: the scale then follows the spend, and says so.
  const spent = points.at(-1)?.spent ?? 0;
  const limitOnScale = spent >= limit / 10;
  const dollars = (value: number) => formatMicros(Math.round(value * 1_000_000));
  return (
    <ChartFrame
      title={
        limitOnScale
          ? 'Spend this period, against the limit'
          : `Spend this period (the limit, ${dollars(limit)}, is far above this scale)`
      }
      summary={summary}
      testId="budget-burn-chart"
    >
      <AreaChart data={points} margin={{ top: 8, right: 12, left: 4, bottom: 0 }}>
        <CartesianGrid {...chartTheme.grid} vertical={false} />
        <XAxis {...timeAxisProps(time)} />
        {valueScale({
          format: dollars,
          labelFormatter: (label) => time.tooltipLabel(String(label)),
          width: 72,
        })}
        <Legend {...chartTheme.legend} />
        {BURN_SERIES.map((series, index) => (
          <Area
            key={series.key}
            type="stepAfter"
            dataKey={series.key}
            name={series.name}
            stroke={chartTheme.series[index]}
            fill={chartTheme.series[index]}
            fillOpacity={series.opacity}
            isAnimationActive={false}
          />
        ))}
        {limitOnScale ? (
          <ReferenceLine
            y={limit}
            stroke="var(--danger)"
            strokeDasharray="4 3"
            ifOverflow="extendDomain"
            label={{
              value: `limit ${dollars(limit)}`,
              position: 'insideTopRight',
              fontSize: 11,
              fill: 'var(--danger)',
            }}
          />
        ) : null}
      </AreaChart>
    </ChartFrame>
  );
}
