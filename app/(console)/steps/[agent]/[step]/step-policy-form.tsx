'use client';

import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { useSaveOrRemoveForm } from '@/components/console/use-sent-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { retriableClasses } from '@holdfast/protocol/inputs/step-policy-input';
import { removeStepPolicyAction, saveStepPolicyAction } from './policy-actions';
import { ReasonField } from '@/components/console/reason-field';

export interface PolicyOverride {
  maxAttempts: number | null;
  retriedClasses: string[] | null;
  baseDelayMs: number | null;
  maxDelayMs: number | null;
  retryAllowance: number | null;
}

const numberFields = [
  { name: 'maxAttempts', label: 'Maximum attempts', hint: 'Per task; blank: bounded by the task’s allowance only.' },
  { name: 'baseDelayMs', label: 'Backoff base (ms)', hint: 'Doubles with each retry; blank: 500.' },
  { name: 'maxDelayMs', label: 'Backoff cap (ms)', hint: 'Blank: 60,000.' },
  {
    name: 'retryAllowance',
    label: 'Allowance for new tasks',
    hint: 'Retries a task begun now may use; blank: as sent.',
  },
] as const;

/** Admins override the step's retry policy (blank parts stay as the agent sends them), or remove the override. */
export function StepPolicyForm({
  names,
  override,
}: {
  names: { agent: string; step: string };
  override: PolicyOverride | null;
}) {
  const router = useRouter();
  const id = useId();
  const [classesOverridden, setClassesOverridden] = useState(override?.retriedClasses != null);
  const { result, errors, pending, submit } = useSaveOrRemoveForm({
    save: saveStepPolicyAction,
    remove: removeStepPolicyAction,
    said: {
      saved: 'Override saved: the next begin and finish of this step use it.',
      unchanged: 'Same override as before: nothing changed.',
      removed: 'Override removed: the policy is again the agent’s.',
      nothingToRemove: 'There was no override: nothing changed.',
    },
    afterSuccess: () => router.refresh(),
  });

  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3" data-testid="step-policy-form">
      <input type="hidden" name="agent" value={names.agent} />
      <input type="hidden" name="step" value={names.step} />
      {numberFields.map((each) => (
        <Field
          key={each.name}
          label={each.label}
          hint={each.hint}
          id={`${id}-${each.name}`}
          error={errors?.[each.name]}
          className="w-44"
        >
          <Input name={each.name} type="number" min={0} size="sm" defaultValue={override?.[each.name] ?? ''} />
        </Field>
      ))}
      <fieldset className="w-full text-[12px]">
        <legend className="sr-only">Classes retried</legend>
        <label className="mr-4 inline-flex items-center gap-1.5 font-medium">
          <input
            type="checkbox"
            name="classesOverridden"
            checked={classesOverridden}
            onChange={(event) => setClassesOverridden(event.target.checked)}
          />
          Retry only these classes:
        </label>
        {retriableClasses.map((errorClass) => (
          <label key={errorClass} className="mr-3 inline-flex items-center gap-1">
            <input
              type="checkbox"
              name="retriedClasses"
              value={errorClass}
              disabled={!classesOverridden}
              defaultChecked={override?.retriedClasses?.includes(errorClass) ?? true}
            />
            {errorClass}
          </label>
        ))}
        {errors?.retriedClasses ? <span className="text-danger">{errors.retriedClasses.join('; ')}</span> : null}
      </fieldset>
      <ReasonField id={id} error={errors?.reason} />
      <Button type="submit" name="intent" value="save" pending={pending} pendingLabel="Saving…">
        Save override
      </Button>
      {override ? (
        <Button type="submit" name="intent" value="remove" pending={pending}>
          Remove override
        </Button>
      ) : null}
      <FormError result={result} className="w-full" />
    </form>
  );
}
