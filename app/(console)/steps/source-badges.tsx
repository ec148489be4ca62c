import { formatUtc } from '@/lib/console/format';
import { attemptSourceHelp, attemptSourceLabels, costSourceHelp, costSourceLabel } from '@/lib/console/labels/sources';
import type { StepCostSource, StepSource } from '@/lib/queries/step-sources';

/**
 * The ways a step's attempts reached Holdfast (library, HTTP, traces), one small badge each, with what the
 * way means and when it was last seen in the title and, for screen readers, in the text.
 */
export function SourceBadges({ sources }: { sources: StepSource[] | undefined }) {
  if (!sources || sources.length === 0) return null;
  return (
    <span className="ml-1.5 inline-flex flex-wrap gap-1 align-middle" data-testid="source-badges">
      {sources.map(({ source, lastSeenAt }) => {
        const explanation = `Attempts ${attemptSourceHelp[source]}; the latest started ${formatUtc(lastSeenAt)}`;
        return (
          <span
            key={source}
            data-testid={`source-badge-${source}`}
            title={explanation}
            className="relative whitespace-nowrap rounded border border-line bg-surface-raised px-1 py-px font-sans text-[10px] font-semibold text-muted"
          >
            {attemptSourceLabels[source]}
            <span className="sr-only">: {explanation}</span>
          </span>
        );
      })}
    </span>
  );
}

/**
 * How a step's kept attempts were costed (reported, priced, rule, none, not recorded), under its spend: priced means
 * an estimate from token counts. Each with what it means and when it was last seen in its title.
 */
export function CostSources({ sources }: { sources: StepCostSource[] | undefined }) {
  if (!sources || sources.length === 0) return null;
  return (
    <span className="block text-[11px] text-muted" data-testid="cost-sources">
      {sources.map(({ costSource, lastSeenAt }, index) => (
        <span
          key={costSource}
          className="whitespace-nowrap"
          title={`Costed by ${costSourceHelp[costSource]}; the latest started ${formatUtc(lastSeenAt)}`}
        >
          {index > 0 ? ' · ' : ''}
          {costSourceLabel(costSource === 'unrecorded' ? null : costSource)}
        </span>
      ))}
    </span>
  );
}
