'use client';

import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { ReasonField } from '@/components/console/reason-field';
import { useSaveOrRemoveForm } from '@/components/console/use-sent-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import type { NamedOwner } from '@/lib/queries/step-owners';
import { removeStepOwnerAction, saveStepOwnerAction } from './owner-actions';

type Scope = 'step' | 'agent';

/**
 * Admins name who owns this step, or every step of its agent: the owner (a known team or person), the on-call
 * contact and the runbook. The fields start from the row of the scope chosen; Remove is offered where one exists.
 */
export function StepOwnerForm({
  names,
  forStep,
  forAgent,
  teams,
}: {
  names: { agent: string; step: string };
  forStep?: NamedOwner;
  forAgent?: NamedOwner;
  /** Known teams, offered as the owner is typed. */
  teams: string[];
}) {
  const router = useRouter();
  const id = useId();
  const [scope, setScope] = useState<Scope>(forStep || !forAgent ? 'step' : 'agent');
  const row = scope === 'step' ? forStep : forAgent;
  const { result, errors, pending, submit } = useSaveOrRemoveForm({
    save: saveStepOwnerAction,
    remove: removeStepOwnerAction,
    said: {
      saved: 'Owner saved.',
      unchanged: 'Same owner as before: nothing changed.',
      removed: 'Owner removed.',
      nothingToRemove: 'There was no owner named there: nothing changed.',
    },
    afterSuccess: () => router.refresh(),
  });

  return (
    // Keyed by scope: the fields start again from the chosen scope's row.
    <form key={scope} onSubmit={submit} className="flex flex-wrap items-end gap-3" data-testid="step-owner-form">
      <input type="hidden" name="agent" value={names.agent} />
      <input type="hidden" name="step" value={names.step} />
      <fieldset className="w-full text-[12px]">
        <legend className="mb-1 font-medium">Owner of</legend>
        <label className="mr-4 inline-flex items-center gap-1.5">
          <input type="radio" name="scope" value="step" checked={scope === 'step'} onChange={() => setScope('step')} />
          this step only
        </label>
        <label className="inline-flex items-center gap-1.5">
          <input
            type="radio"
            name="scope"
            value="agent"
            checked={scope === 'agent'}
            onChange={() => setScope('agent')}
          />
          every step of {names.agent}
        </label>
      </fieldset>
      <Field
        label="Owner"
        hint="team:<name> or person:<email>"
        id={`${id}-owner`}
        error={errors?.owner}
        className="w-full sm:w-56"
      >
        <Input
          name="owner"
          required
          size="sm"
          list={`${id}-teams`}
          defaultValue={row?.owner ?? ''}
          autoComplete="off"
        />
      </Field>
      <datalist id={`${id}-teams`}>
        {teams.map((team) => (
          <option key={team} value={team} />
        ))}
      </datalist>
      <Field
        label="On-call contact"
        hint="Optional: a rotation or a pager"
        id={`${id}-contact`}
        error={errors?.contact}
        className="w-full sm:w-56"
      >
        <Input name="contact" size="sm" maxLength={200} defaultValue={row?.contact ?? ''} />
      </Field>
      <Field
        label="Runbook"
        hint="Optional: an https address, or a console path such as /runbooks/..."
        id={`${id}-runbook`}
        error={errors?.runbookUrl}
        className="w-full sm:w-72"
      >
        <Input name="runbookUrl" size="sm" defaultValue={row?.runbookUrl ?? ''} placeholder="https://" />
      </Field>
      <ReasonField id={id} error={errors?.reason} />
      <Button type="submit" name="intent" value="save" pending={pending} pendingLabel="Saving…">
        Save owner
      </Button>
      {row ? (
        <Button type="submit" name="intent" value="remove" pending={pending}>
          Remove this owner
        </Button>
      ) : null}
      <FormError result={result} className="w-full" />
    </form>
  );
}
