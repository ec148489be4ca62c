'use client';

import type { ReactNode } from 'react';
import { ResponsiveContainer } from 'recharts';

/**
 * The one wrapper every chart goes through: a titled figure with an accessible
 * label, a fixed height, and colours taken from the theme's CSS variables so
 * charts read in light and dark alike.
 */
export function ChartFrame({
  title,
  summary,
  children,
  testId,
}: {
  title: string;
  summary: string;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <figure className="rounded-lg border border-line bg-surface p-3" data-testid={testId}>
      <figcaption className="mb-2 text-[12px] font-medium text-muted">{title}</figcaption>
      <div role="img" aria-label={`${title}: ${summary}`} className="h-48 w-full">
        <ResponsiveContainer width="100%" height="100%" minWidth={0}>
          {children}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

/** Shared axis, grid and tooltip styling. */
export const chartTheme = {
  axis: { stroke: 'var(--muted)', fontSize: 11, tickLine: false },
  grid: { stroke: 'var(--line)', strokeDasharray: '3 3' },
  tooltip: {
    contentStyle: {
      background: 'var(--surface)',
      border: '1px solid var(--line)',
      borderRadius: 6,
      fontSize: 12,
      color: 'var(--ink)',
    },
    labelStyle: { color: 'var(--muted)' },
  },
  /** Single-series charts, coloured by what they measure; steps and error classes take theirs from chart-colours. */
  series: ['var(--accent)', 'var(--warn)', 'var(--danger)', 'var(--ok)'],
  /**
   * Above the plot, clear of the time axis's label; names in the text colour
   * (recharts writes them in the series colour, too faint on white for some).
   */
  legend: {
    verticalAlign: 'top',
    wrapperStyle: { fontSize: 11, paddingBottom: 4 },
    formatter: (value: unknown) => <span style={{ color: 'var(--ink)' }}>{String(value)}</span>,
  },
} as const;

/** Props for a time X axis over buckets keyed `bucket` (ISO): ticks in the chosen zone, the zone named under them. */
export function timeAxisProps(time: { axisLabel: string; tick: (iso: string) => string }) {
  return {
    dataKey: 'bucket',
    ...chartTheme.axis,
    minTickGap: 24,
    height: 38,
    tickFormatter: (value: string) => time.tick(String(value)),
    label: { value: time.axisLabel, position: 'insideBottom' as const, offset: 0, fontSize: 11, fill: 'var(--muted)' },
  };
}

/**
 * A value axis from zero to the data's peak, or to `quietTop` when every bucket is zero: left to itself the axis
 * then runs 0 to 4 and labels a quiet hour "400 %" or "$0.0000" five times.
 */
export const zeroSafeDomain = (quietTop: number) =>
  [0, (dataMax: number) => (dataMax > 0 ? niceTop(dataMax) : quietTop)] as [number, (dataMax: number) => number];

/**
 * The round number at or above a chart's peak (1, 2, 2.5 or 5 times a power of ten), so that its ticks fall evenly
 * and the top one is a round figure rather than the peak itself.
 */
export function niceTop(peak: number): number {
  const power = 10 ** Math.floor(Math.log10(peak));
  const step = [1, 2, 2.5, 5, 10].find((factor) => factor * power >= peak * (1 - 1e-9)) ?? 10;
  return step * power;
}
