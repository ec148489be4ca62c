'use client';

import { Bar, BarChart, CartesianGrid, Legend, LineChart, XAxis } from 'recharts';
import { formatMicros, formatPercent } from '@/lib/console/format';
import type { OverviewView } from '@/lib/queries/overview';
import { assignSeriesColours } from './chart-colours';
import { ChartFrame, chartTheme, timeAxisProps } from './chart-frame';
import { useBucketTime } from './chart-time';
import { type EventMark, eventMarkLines } from './event-marks';
import { retryShareSeries, valueScale } from './value-scale';
import { visibleText } from '@/lib/console/visible-text';
import { bucketUnitLabel, withEveryBucket } from '@holdfast/protocol/time-window';

/** Retry share of spend over time, and retry spend stacked by the top steps. */
export function OverviewCharts({ view, marks = [] }: { view: OverviewView; marks?: EventMark[] }) {
  const per = bucketUnitLabel[view.unit];
  const time = useBucketTime(view.unit);
  const labelFormatter = (label: unknown) => time.tooltipLabel(String(label));
  const range = { from: new Date(view.range.from), to: new Date(view.range.to) };
  const shareOverTime = withEveryBucket(view.shareOverTime, range, view.unit, (bucket) => ({ bucket, share: 0 }));
  const retrySpendByStep = withEveryBucket(view.retrySpendByStep, range, view.unit, (bucket) => ({ bucket }));
  const peakShare = shareOverTime.length ? Math.max(...shareOverTime.map((point) => point.share)) : 0;
  // topSteps comes most retry spend first, so the leading step keeps its own colour.
  const colours = assignSeriesColours(view.topSteps);
  return (
    <div className="grid gap-3 lg:grid-cols-2">
      <ChartFrame
        title={`Retry share of spend ${per}`}
        summary={`peak ${formatPercent(peakShare)}`}
        testId="chart-retry-share"
      >
        <LineChart data={shareOverTime}>
          <CartesianGrid {...chartTheme.grid} vertical={false} />
          <XAxis {...timeAxisProps(time)} />
          {retryShareSeries({ dataKey: 'share', name: 'Retry share', labelFormatter })}
          <Legend {...chartTheme.legend} />
          {eventMarkLines(marks)}
        </LineChart>
      </ChartFrame>
      <ChartFrame
        title={`Retry spend ${per}, top steps`}
        summary={view.topSteps.length ? `stacked by ${view.topSteps.join(', ')}` : 'no retry spend'}
        testId="chart-retry-spend-by-step"
      >
        <BarChart data={retrySpendByStep}>
          <CartesianGrid {...chartTheme.grid} vertical={false} />
          <XAxis {...timeAxisProps(time)} />
          {valueScale({ format: formatMicros, labelFormatter, width: 60, bars: true })}
          <Legend {...chartTheme.legend} />
          {eventMarkLines(marks)}
          {view.topSteps.map((step) => (
            <Bar
              key={step}
              // A function, not the key itself: a step named with a dot would read as a path.
              dataKey={(point: Record<string, number | string>) => point[step] ?? 0}
              name={visibleText(step)}
              stackId="steps"
              fill={colours.get(step)}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ChartFrame>
    </div>
  );
}
