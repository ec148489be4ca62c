import { CardSection } from '@/components/ui/card-section';
import { Moment } from '@/components/ui/time';
import type { Decision } from '@holdfast/engine/core';
import type { StepPolicy as StoredPolicy } from '@holdfast/engine/db/schema';
import { formatCount } from '@/lib/console/format';
import { PolicySimulator } from './policy-simulator';
import { type PolicyOverride, StepPolicyForm } from './step-policy-form';

/** What an override says, part by part, beside what applies without it. */
function parts(policy: StoredPolicy | undefined) {
  return [
    {
      label: 'Maximum attempts',
      agent: 'bounded by the task’s retry allowance',
      override: policy?.maxAttempts == null ? null : formatCount(policy.maxAttempts),
    },
    {
      label: 'Classes retried',
      agent: 'transient, timeout, rate_limited; invalid_output once',
      override: policy?.retriedClasses == null ? null : policy.retriedClasses.join(', ') || 'none',
    },
    {
      label: 'Backoff',
      agent: '500 ms doubling, at most 60 s, full jitter',
      override:
        policy?.baseDelayMs == null && policy?.maxDelayMs == null
          ? null
          : `${formatCount(policy?.baseDelayMs ?? 500)} ms doubling, at most ${formatCount(policy?.maxDelayMs ?? 60_000)} ms`,
    },
    {
      label: 'Retry allowance of new tasks',
      agent: 'as each begin states it (5 when it does not)',
      override: policy?.retryAllowance == null ? null : formatCount(policy.retryAllowance),
    },
  ];
}

/** The stored override as the forms take it (null: none). */
function overrideOf(policy: StoredPolicy | undefined): PolicyOverride | null {
  if (!policy) return null;
  const { maxAttempts, retriedClasses, baseDelayMs, maxDelayMs, retryAllowance } = policy;
  return { maxAttempts, retriedClasses, baseDelayMs, maxDelayMs, retryAllowance };
}

/** The step's retry policy: what agents send, an admin's live override beside it, and the form to change it. */
export function StepPolicySection({
  names,
  policy,
  managing,
  tracesOnly = false,
}: {
  names: { agent: string; step: string };
  policy: StoredPolicy | undefined;
  managing: Decision;
  /** The step reaches Holdfast only as spans: its agent follows no policy Holdfast sends. */
  tracesOnly?: boolean;
}) {
  return (
    <CardSection
      headingId="step-policy-heading"
      heading={`Retry policy${policy ? ' (overridden)' : ''}`}
      testId="step-policy"
      className="mb-5"
    >
      {policy ? (
        <p className="text-[12px] text-muted">
          Overridden by {policy.updatedBy}, <Moment value={policy.updatedAt} />: the next begin and finish of this step
          use it, running tasks included.
        </p>
      ) : null}
      {tracesOnly ? (
        <p className="mt-1 max-w-prose text-[12px] text-muted" data-testid="step-policy-needs-protocol">
          This step reaches Holdfast only as spans: its agent retries as its own code says and asks Holdfast nothing, so
          no policy here applies to it, and nothing here can be simulated against what it would do. Run the step through
          the step protocol, a client or an adapter to have its retries follow a policy set here.
        </p>
      ) : (
        <PolicyParts policy={policy} names={names} managing={managing} />
      )}
    </CardSection>
  );
}

/** The policy part by part, the simulator and, for admins, the form. */
function PolicyParts({
  names,
  policy,
  managing,
}: {
  names: { agent: string; step: string };
  policy: StoredPolicy | undefined;
  managing: Decision;
}) {
  return (
    <>
      <table className="mt-2 text-[12px]" data-testid="step-policy-table">
        <thead className="sr-only">
          <tr>
            <th scope="col">Part</th>
            <th scope="col">As agents send it</th>
            <th scope="col">Override</th>
          </tr>
        </thead>
        <tbody>
          {parts(policy).map((part) => (
            <tr key={part.label}>
              <th scope="row" className="pr-4 text-left font-medium">
                {part.label}
              </th>
              <td className={`pr-4 ${part.override ? 'text-muted line-through' : ''}`}>{part.agent}</td>
              <td className="font-medium">{part.override ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details className="mt-2">
        <summary className="cursor-pointer text-[12px] text-accent">
          What if it retried less? Simulate another policy…
        </summary>
        <div className="mt-2">
          <PolicySimulator names={names} canApply={managing.allowed} override={overrideOf(policy)} />
        </div>
      </details>
      {managing.allowed ? (
        <details className="mt-2">
          <summary className="cursor-pointer text-[12px] text-accent">Change the policy live…</summary>
          <div className="mt-2">
            <StepPolicyForm names={names} override={overrideOf(policy)} />
          </div>
        </details>
      ) : null}
    </>
  );
}
