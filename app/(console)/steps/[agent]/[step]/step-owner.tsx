import Link from 'next/link';
import { CardSection } from '@/components/ui/card-section';
import { VisibleText } from '@/components/ui/visible-text';
import { visibleText } from '@/lib/console/visible-text';
import type { Decision } from '@holdfast/engine/core';
import type { NamedOwner, StepOwnerView } from '@/lib/queries/step-owners';
import { StepOwnerForm } from './step-owner-form';

const sourceSaid = {
  step: 'named by an admin for this step',
  agent: 'named by an admin for every step of the agent',
  declared: 'declared by the agent: the owner of its newest task',
} as const;

/** Who answers for the step: the owner, how to reach them, where its alerts go; and, for admins, the form. */
export function StepOwnerSection({
  names,
  owner,
  named,
  teams,
  managing,
}: {
  names: { agent: string; step: string };
  owner: StepOwnerView;
  named: { forStep?: NamedOwner; forAgent?: NamedOwner };
  teams: string[];
  managing: Decision;
}) {
  return (
    <CardSection
      headingId="step-owner-heading"
      heading="Owner"
      hideHeading
      testId="step-owner-section"
      className="text-[13px]"
    >
      {owner.owner && owner.source ? (
        <dl className="flex flex-wrap gap-x-6 gap-y-1">
          <div>
            <dt className="inline text-muted">Owner </dt>
            <dd className="inline font-medium [overflow-wrap:anywhere]" data-testid="step-owner-name">
              <VisibleText text={owner.owner} />
            </dd>
            <dd className="text-[11px] text-muted" data-testid="step-owner-source">
              {sourceSaid[owner.source]}
              {owner.declared && owner.declared !== owner.owner ? (
                <>
                  {' '}
                  (the agent declares <VisibleText text={owner.declared} />)
                </>
              ) : null}
            </dd>
          </div>
          {owner.contact ? (
            <div>
              <dt className="inline text-muted">On call </dt>
              <dd className="inline [overflow-wrap:anywhere]" data-testid="step-owner-contact">
                <VisibleText text={owner.contact} />
              </dd>
            </div>
          ) : null}
          {owner.runbookUrl ? (
            <div>
              <dt className="inline text-muted">Runbook </dt>
              <dd className="inline [overflow-wrap:anywhere]">
                {owner.runbookUrl.startsWith('/') ? (
                  <Link href={owner.runbookUrl} className="text-accent underline">
                    <VisibleText text={owner.runbookUrl} />
                  </Link>
                ) : (
                  <a
                    href={owner.runbookUrl}
                    className="text-accent underline"
                    rel="noreferrer noopener"
                    target="_blank"
                  >
                    <VisibleText text={owner.runbookUrl} />
                  </a>
                )}
              </dd>
            </div>
          ) : null}
          <div>
            <dt className="inline text-muted">Alerts go to </dt>
            <dd className="inline" data-testid="step-owner-channels">
              {owner.channels.length > 0
                ? owner.channels.map((channel) => visibleText(channel)).join(', ')
                : 'every channel not routed to a team'}
            </dd>
          </div>
        </dl>
      ) : (
        <p className="text-muted" data-testid="step-owner-none">
          No owner: nothing names one (an agent declares its owner at its first begin; a traced agent declares none).
          {managing.allowed ? ' Name one below.' : ' An admin can name one.'}
        </p>
      )}
      {managing.allowed ? (
        <details className="mt-2">
          <summary className="cursor-pointer text-[12px] text-accent">Change the owner…</summary>
          <div className="mt-2">
            <StepOwnerForm names={names} forStep={named.forStep} forAgent={named.forAgent} teams={teams} />
          </div>
        </details>
      ) : null}
    </CardSection>
  );
}
