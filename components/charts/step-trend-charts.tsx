'use client';

import { useRouter } from 'next/navigation';
import { Bar, BarChart, CartesianGrid, Legend, LineChart, XAxis } from 'recharts';
import { formatMicros, formatPercent } from '@/lib/console/format';
import { type BucketUnit, bucketLengthMs, bucketUnitLabel, withEveryBucket } from '@holdfast/protocol/time-window';
import type { ErrorClass } from '@holdfast/protocol/enums';
import type { StepTrendPoint } from '@/lib/queries/step-detail';
import { errorClassColours } from './chart-colours';
import { ChartFrame, chartTheme, timeAxisProps } from './chart-frame';
import { useBucketTime } from './chart-time';
import { retryShareSeries, valueScale } from './value-scale';
import { useDragZoom } from './drag-zoom';
import { type EventMark, eventMarkLines } from './event-marks';

interface Props {
  points: StepTrendPoint[];
  unit: BucketUnit;
  /** The window drawn, ISO: every bucket of it gets a point, a quiet one zero. */
  range: { from: string; to: string };
  classesSeen: ErrorClass[];
  /** Priced attempts are part of the retry spend (or may be): its chart says it is an estimate. */
  retrySpendEstimated?: boolean;
  /** The step page's path: dragging across a chart opens it over the buckets dragged (a custom window). */
  zoomPath: string;
  /** What happened when (pauses, resumes, breaker changes, policy changes, redrives), drawn on every chart. */
  marks?: EventMark[];
}

/** The step detail's four trends: attempts, retry rate, retry spend, failures by error class. */
export function StepTrendCharts({
  points,
  unit,
  range,
  classesSeen,
  retrySpendEstimated = false,
  zoomPath,
  marks = [],
}: Props) {
  const router = useRouter();
  const zoom = useDragZoom((firstBucket, lastBucket) => {
    const to = new Date(new Date(lastBucket).getTime() + bucketLengthMs[unit]).toISOString();
    const query = new URLSearchParams({ window: 'custom', from: firstBucket, to });
    router.push(`${zoomPath}?${query}`);
  });
  const everyBucket = withEveryBucket(
    points,
    { from: new Date(range.from), to: new Date(range.to) },
    unit,
    (bucket): StepTrendPoint => ({
      bucket,
      attempts: 0,
      retries: 0,
      retryRate: 0,
      retrySpendMicros: 0,
      failuresByClass: {},
    }),
  );
  const data = everyBucket.map((point) => ({ ...point, ...point.failuresByClass }));
  const per = bucketUnitLabel[unit];
  const time = useBucketTime(unit);
  // What every chart of the step draws under its figures: the grid, the time axis, a drag's selection and the marks.
  const frame = [
    <CartesianGrid key="grid" {...chartTheme.grid} vertical={false} />,
    <XAxis key="time" {...timeAxisProps(time)} />,
    zoom.selection,
    ...eventMarkLines(marks),
  ];
  const labelFormatter = (label: unknown) => time.tooltipLabel(String(label));
  const peak = (values: number[]) => (values.length ? Math.max(...values) : 0);

  return (
    <>
      <div className="grid gap-3 lg:grid-cols-2">
        <ChartFrame
          title={`Attempts ${per}`}
          summary={`${data.length} buckets, peak ${peak(data.map((d) => d.attempts))}`}
          testId="chart-attempts"
        >
          <BarChart data={data} {...zoom.chartProps}>
            {frame}
            {valueScale({ labelFormatter, width: 36, bars: true })}
            <Bar dataKey="attempts" name="Attempts" fill={chartTheme.series[0]} isAnimationActive={false} />
          </BarChart>
        </ChartFrame>
        <ChartFrame
          title={`Retry rate ${per}`}
          summary={`peak ${formatPercent(peak(data.map((d) => d.retryRate)))}`}
          testId="chart-retry-rate"
        >
          <LineChart data={data} {...zoom.chartProps}>
            {frame}
            {retryShareSeries({ dataKey: 'retryRate', name: 'Retry rate', labelFormatter })}
            <Legend {...chartTheme.legend} />
          </LineChart>
        </ChartFrame>
        <ChartFrame
          title={`Retry spend ${per}${retrySpendEstimated ? ' (estimate)' : ''}`}
          summary={`peak ${formatMicros(peak(data.map((d) => d.retrySpendMicros)))}`}
          testId="chart-retry-spend"
        >
          <BarChart data={data} {...zoom.chartProps}>
            {frame}
            {valueScale({ format: formatMicros, labelFormatter, width: 60, quietTop: 10_000, bars: true })}
            <Bar dataKey="retrySpendMicros" name="Retry spend" fill={chartTheme.series[2]} isAnimationActive={false} />
          </BarChart>
        </ChartFrame>
        <ChartFrame
          title={`Failures by error class ${per}`}
          summary={classesSeen.length ? `classes: ${classesSeen.join(', ')}` : 'no failures'}
          testId="chart-error-classes"
        >
          <BarChart data={data} {...zoom.chartProps}>
            {frame}
            {valueScale({ labelFormatter, width: 36, bars: true })}
            <Legend {...chartTheme.legend} />
            {classesSeen.map((errorClass) => (
              <Bar
                key={errorClass}
                dataKey={errorClass}
                name={errorClass}
                stackId="classes"
                fill={errorClassColours[errorClass]}
                isAnimationActive={false}
              />
            ))}
          </BarChart>
        </ChartFrame>
      </div>
      <p className="mt-1 text-[12px] text-muted" data-testid="chart-zoom-hint">
        Drag across a chart to zoom in on those buckets; the custom range above does the same from the keyboard.
      </p>
    </>
  );
}
