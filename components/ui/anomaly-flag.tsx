import { formatPercent } from '@/lib/console/format';

export interface AnomalyFacts {
  recentShare: number;
  baseline: number;
  threshold: number;
}

/** Marks a step whose retry share of spend jumped in the last 24 hours, with the figures behind it. */
export function AnomalyFlag({ anomaly }: { anomaly: AnomalyFacts | undefined }) {
  if (!anomaly) return null;
  const explanation = `Retry share of spend in the last 24 h is ${formatPercent(anomaly.recentShare)}, against a 7-day median of ${formatPercent(anomaly.baseline)} (flagged above ${formatPercent(anomaly.threshold)})`;
  return (
    <span
      data-testid="anomaly-flag"
      title={explanation}
      className="ml-1.5 whitespace-nowrap rounded bg-danger-soft px-1 py-px font-sans text-[10px] font-semibold text-danger"
    >
      retry share up<span className="sr-only">: {explanation}</span>
    </span>
  );
}
