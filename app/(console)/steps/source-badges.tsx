import { formatUtc } from '@/lib/console/format';
import { attemptSourceHelp, attemptSourceLabels } from '@/lib/console/labels/sources';
import type { StepSource } from '@/lib/queries/step-sources';

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
