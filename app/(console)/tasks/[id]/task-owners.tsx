import { OwnerName } from '@/components/console/owner-name';
import type { StepOwnerView } from '@/lib/queries/step-owners';
import { StepLink } from '../links';

/**
 * Who to wake for this task: the owner of each step it ran (its own, its agent's, or what its agent declares),
 * one line per owner with the steps they answer for. The owner the task itself declared is in the header.
 */
export function TaskOwners({ owners }: { owners: { agent: string; step: string; owner: StepOwnerView }[] }) {
  if (owners.length === 0) return null;
  const byOwner = new Map<string, typeof owners>();
  for (const each of owners) {
    const name = each.owner.owner ?? '';
    byOwner.set(name, [...(byOwner.get(name) ?? []), each]);
  }
  return (
    <div className="mb-3 text-[13px]" data-testid="task-owners">
      <span className="text-muted">Who answers for its steps: </span>
      <ul className="inline">
        {[...byOwner.values()].map((steps) => (
          <li key={steps[0]!.owner.owner ?? ''} className="mr-3 inline [overflow-wrap:anywhere]">
            <OwnerName owner={steps[0]!.owner} testId="task-step-owner" />{' '}
            <span className="text-[12px] text-muted">
              (
              {steps.map((each, index) => (
                <span key={each.step} className="font-mono">
                  {index > 0 ? ', ' : null}
                  <StepLink agent={each.agent} step={each.step} />
                </span>
              ))}
              )
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
