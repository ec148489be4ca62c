import { VisibleText } from '@/components/ui/visible-text';
import type { StepOwnerView } from '@/lib/queries/step-owners';

const sourceNote = {
  step: 'named by an admin for this step',
  agent: 'named by an admin for every step of the agent',
  declared: 'declared by the agent (the owner of its newest task); no admin has named one',
} as const;

/** A step's owner in a list: the name, "declared" when only the agent says so, "no owner" when nobody does. */
export function OwnerName({
  owner,
  className = '',
  testId = 'step-owner',
  noneText = 'no owner',
}: {
  owner: StepOwnerView | undefined;
  className?: string;
  testId?: string;
  /** What to say when nothing names an owner. */
  noneText?: string;
}) {
  if (!owner?.owner || !owner.source)
    return (
      <span className={`text-muted ${className}`} data-testid={testId} title="Nothing names an owner: an admin can">
        {noneText}
      </span>
    );
  return (
    <span className={className} data-testid={testId} title={sourceNote[owner.source]}>
      <VisibleText text={owner.owner} />
      {owner.source === 'declared' ? <span className="text-muted"> (declared)</span> : null}
    </span>
  );
}
