import type { ReactNode } from 'react';
import { Line, Tooltip, YAxis } from 'recharts';
import { formatPercent } from '@/lib/console/format';
import { chartTheme, zeroSafeDomain } from './chart-frame';

/**
 * How a chart reads its values: the Y axis and the tooltip, both in one format ("12 %", "$1.20"), or whole counts
 * when there is none. `quietTop` keeps the axis from zero to a sensible top when every bucket is zero; bar charts
 * shade the hovered bucket.
 */
export function valueScale({
  format,
  labelFormatter,
  width,
  quietTop,
  bars = false,
}: {
  format?: (value: number) => string;
  labelFormatter: (label: unknown) => ReactNode;
  width: number;
  quietTop?: number;
  bars?: boolean;
}) {
  return [
    <YAxis
      key="value-axis"
      {...chartTheme.axis}
      {...(quietTop === undefined ? {} : { domain: zeroSafeDomain(quietTop) })}
      {...(format ? { tickFormatter: (value: number) => format(value) } : { allowDecimals: false })}
      width={width}
    />,
    <Tooltip
      key="value-tooltip"
      {...chartTheme.tooltip}
      labelFormatter={labelFormatter}
      {...(format ? { formatter: (value: unknown) => format(Number(value)) } : {})}
      {...(bars ? { cursor: { fill: 'var(--surface-raised)' } } : {})}
    />,
  ];
}

/** A retry share over time (0 to 100 %), as the Overview and a step's page both draw it: a line in the warning colour. */
export function retryShareSeries({
  dataKey,
  name,
  labelFormatter,
}: {
  dataKey: string;
  name: string;
  labelFormatter: (label: unknown) => ReactNode;
}) {
  return [
    ...valueScale({ format: formatPercent, labelFormatter, width: 48, quietTop: 1 }),
    <Line
      key="share-line"
      dataKey={dataKey}
      name={name}
      stroke={chartTheme.series[1]}
      dot={false}
      isAnimationActive={false}
    />,
  ];
}
