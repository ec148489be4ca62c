import type { ComparedStepStats } from '@/lib/queries/step-figures';
import { headlineColumns } from '@/lib/console/step-columns';
import { isNewStep } from '@/lib/console/step-changes';
import { FigureChange } from '../../figure-change';

/**
 * The step's window at a glance: each figure against the previous window of equal length, and when it was read.
 * A step with no attempts in the window reads zeros, each against what it had before.
 */
export function StepHeadline({ figures, asOf }: { figures: ComparedStepStats; asOf: Date }) {
  return (
    <section aria-labelledby="step-headline-heading" className="mb-4" data-testid="step-headline">
      <h2 id="step-headline-heading" className="mb-2 text-[12px] text-muted">
        This window, against the one before; as of{' '}
        <time dateTime={asOf.toISOString()}>{asOf.toISOString().slice(11, 19)} UTC</time>
        {isNewStep(figures) ? '. The window before had no attempts: nothing to compare with.' : null}
      </h2>
      <div className="grid grid-cols-[repeat(auto-fill,minmax(8.5rem,1fr))] gap-3">
        {headlineColumns.map((column) => (
          <div
            key={column.key}
            className="min-w-0 rounded-lg border border-line bg-surface px-3 py-2"
            data-testid={`step-headline-${column.key}`}
            title={column.help}
          >
            <div className="text-[12px] text-muted">{column.label}</div>
            <div className="text-lg font-semibold tabular-nums tracking-tight" data-testid="value">
              {column.show(figures)}
            </div>
            <FigureChange column={column.key} row={figures} />
          </div>
        ))}
      </div>
    </section>
  );
}
