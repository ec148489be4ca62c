'use client';

import { type FormEvent, useRef, useState } from 'react';
import { type SaveOutcome, useSavedForm } from '@/components/console/use-saved-form';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { type PersonFormValues, type SavePersonState, savePersonAction } from './actions';

export interface PersonValues {
  email: string;
  displayName: string;
  role: 'viewer' | 'responder' | 'admin';
  teams: string[];
}

/** What the toast says about a save: what happened, or why it did not. */
function outcomeOf(state: SavePersonState): SaveOutcome {
  const { result } = state;
  if (!result.ok) return { message: `Not saved: ${result.message}`, tone: 'error' };
  if (result.data.created) return { message: `Added ${result.data.email}.`, tone: 'success' };
  if (!result.data.changed) return { message: `Nothing changed for ${result.data.email}.`, tone: 'info' };
  return { message: `Saved ${result.data.email}.`, tone: 'success' };
}

/**
 * One row's editor, or (without `person`) the form that adds someone. Every
 * change needs a reason, kept in the audit log. `self` marks the signed-in
 * admin's own row: giving up the admin role there asks first.
 */
export function PersonForm({ person, self = false }: { person?: PersonValues; self?: boolean }) {
  const { state, submit, pending, refused, errors, saveButton } = useSavedForm(savePersonAction, outcomeOf);
  const form = useRef<HTMLFormElement>(null);
  const confirmedSelfDemotion = useRef(false);
  const [warning, setWarning] = useState(false);
  const id = person?.email ?? 'new';
  const initial: PersonFormValues = refused ?? {
    email: person?.email ?? '',
    displayName: person?.displayName ?? '',
    role: person?.role ?? 'viewer',
    teams: person?.teams.join(', ') ?? '',
    reason: '',
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const role = new FormData(event.currentTarget).get('role');
    const losesAdmin = self && person?.role === 'admin' && role !== 'admin';
    if (losesAdmin && !confirmedSelfDemotion.current) {
      event.preventDefault();
      setWarning(true);
    }
    confirmedSelfDemotion.current = false;
  };

  return (
    <>
      <form
        ref={form}
        action={submit}
        onSubmit={onSubmit}
        className="flex flex-wrap items-center gap-2"
        data-testid={`person-form-${id}`}
      >
        {person ? (
          <input type="hidden" name="email" value={person.email} />
        ) : (
          <Input
            name="email"
            type="email"
            required
            aria-label="Email"
            defaultValue={initial.email}
            placeholder="email"
            size="sm"
            className="max-md:w-full"
          />
        )}
        <Input
          name="displayName"
          required
          aria-label="Name"
          defaultValue={initial.displayName}
          placeholder="name"
          size="sm"
          className="max-md:min-w-0 max-md:flex-1"
        />
        {/* Keyed: a select takes its default only when mounted, and the form's reset after a save returns to it. */}
        <Select key={initial.role} name="role" aria-label="Role" defaultValue={initial.role} size="sm">
          <option value="viewer">viewer</option>
          <option value="responder">responder</option>
          <option value="admin">admin</option>
        </Select>
        <Input
          name="teams"
          aria-label="Teams"
          defaultValue={initial.teams}
          placeholder="e.g. growth, ops"
          size="sm"
          className="max-md:w-full"
        />
        <Input
          name="reason"
          required
          minLength={3}
          maxLength={500}
          aria-label="Reason"
          aria-invalid={errors.reason ? true : undefined}
          errorId={errors.reason ? `person-reason-error-${id}` : undefined}
          defaultValue={initial.reason}
          placeholder={person ? 'why (kept in the audit log)' : 'why they are added'}
          size="sm"
          className="min-w-48 flex-1 max-md:w-full"
        />
        <Button ref={saveButton} type="submit" variant="primary" pending={pending} pendingLabel="Saving…">
          {person ? 'Save' : 'Add person'}
        </Button>
        {errors.reason ? (
          <p id={`person-reason-error-${id}`} className="w-full text-[12px] text-danger">
            Reason: {errors.reason.join('; ')}
          </p>
        ) : null}
        <FormError result={state?.result} className="w-full" />
      </form>
      {self ? (
        <ConfirmDialog
          open={warning}
          title="Remove your own admin role?"
          confirmLabel="Remove my admin role"
          tone="danger"
          onCancel={() => setWarning(false)}
          onConfirm={() => {
            setWarning(false);
            confirmedSelfDemotion.current = true;
            form.current?.requestSubmit();
          }}
          testId="self-demotion-dialog"
        >
          You will lose access to these settings (people, API tokens, retry pools, kill switches) as soon as this is
          saved, and you will be signed out. Only another admin can give the role back.
        </ConfirmDialog>
      ) : null}
    </>
  );
}
