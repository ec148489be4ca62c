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
  series: ['var(--accent)', 'var(--warn)', 'var(--danger)', 'var(--ok)', '#8b5cf6', '#0ea5a4'],
} as const;

export function formatBucket(iso: string, unit: 'hour' | 'day'): string {
  return unit === 'hour' ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(5, 10);
}
