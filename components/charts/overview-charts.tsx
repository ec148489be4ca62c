'use client';

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatMicros, formatPercent } from '@/lib/console/format';
import type { OverviewView } from '@/lib/queries/overview';
import { ChartFrame, chartTheme, formatBucket } from './chart-frame';

/** Retry share of spend over time, and retry spend stacked by the top steps. */
export function OverviewCharts({ view }: { view: OverviewView }) {
  const per = view.unit === 'hour' ? 'per hour' : 'per day';
  const shares = view.shareOverTime.map((point) => ({ ...point, label: formatBucket(point.bucket, view.unit) }));
  const spend = view.retrySpendByStep.map((point) => ({
    ...point,
    label: formatBucket(String(point.bucket), view.unit),
  }));
  const peakShare = shares.length ? Math.max(...shares.map((point) => point.share)) : 0;
  return (
    <div className="grid gap-3 lg:grid-cols-2">
      <ChartFrame
        title={`Retry share of spend ${per}`}
        summary={`peak ${formatPercent(peakShare)}`}
        testId="chart-retry-share"
      >
        <LineChart data={shares}>
          <CartesianGrid {...chartTheme.grid} vertical={false} />
          <XAxis dataKey="label" {...chartTheme.axis} minTickGap={24} />
          <YAxis {...chartTheme.axis} tickFormatter={(value: number) => formatPercent(value)} width={48} />
          <Tooltip {...chartTheme.tooltip} formatter={(value) => formatPercent(Number(value))} />
          <Line
            dataKey="share"
            name="Retry share"
            stroke={chartTheme.series[1]}
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </ChartFrame>
      <ChartFrame
        title={`Retry spend ${per}, top steps`}
        summary={view.topSteps.length ? `stacked by ${view.topSteps.join(', ')}` : 'no retry spend'}
        testId="chart-retry-spend-by-step"
      >
        <BarChart data={spend}>
          <CartesianGrid {...chartTheme.grid} vertical={false} />
          <XAxis dataKey="label" {...chartTheme.axis} minTickGap={24} />
          <YAxis {...chartTheme.axis} tickFormatter={(value: number) => formatMicros(value)} width={60} />
          <Tooltip
            {...chartTheme.tooltip}
            formatter={(value) => formatMicros(Number(value))}
            cursor={{ fill: 'var(--surface-raised)' }}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {view.topSteps.map((step, index) => (
            <Bar
              key={step}
              dataKey={step}
              stackId="steps"
              fill={chartTheme.series[index % chartTheme.series.length]}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ChartFrame>
    </div>
  );
}
