import { changeOf } from '@/lib/console/step-changes';
import type { ComparedStepStats } from '@/lib/queries/step-figures';
import type { SortColumn } from '@/lib/filters/steps';

const verdictColor = { worse: 'text-danger', better: 'text-ok', neither: 'text-muted' } as const;

/** A figure's change against the previous window, under the figure: signed, and "worse" or "better" in words. */
export function FigureChange({ column, row }: { column: SortColumn; row: Partial<ComparedStepStats> }) {
  const change = changeOf(column, row);
  if (!change) return null;
  return (
    <span className={`block text-[11px] ${verdictColor[change.verdict]}`} data-testid={`change-${column}`}>
      {change.text}
      {change.verdict === 'neither' ? null : ` ${change.verdict}`}
    </span>
  );
}
