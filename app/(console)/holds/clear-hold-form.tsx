'use client';

import { useActionState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { clearHoldAction } from './actions';

/** Clear one hold: resume or discard, with the note the audit log keeps. */
export function ClearHoldForm({ holdId, refusal }: { holdId: number; refusal?: string }) {
  const [result, submit, pending] = useActionState(clearHoldAction, undefined);
  if (refusal) {
    return (
      <p className="text-[12px] text-muted" data-testid="clear-refused">
        You cannot clear this: {refusal}.
      </p>
    );
  }
  return (
    <form action={submit} className="flex flex-wrap items-center gap-2" data-testid="clear-hold-form">
      <input type="hidden" name="holdId" value={holdId} />
      <Field label="Resolution" id={`resolution-${holdId}`} hideLabel>
        <Select name="resolution" size="sm">
          <option value="resume">Resume</option>
          <option value="discard">Discard</option>
        </Select>
      </Field>
      <Field label="Note" id={`note-${holdId}`} hideLabel>
        <Input name="note" required placeholder="Why (kept in the audit log)" size="sm" className="min-w-40 flex-1" />
      </Field>
      <Button type="submit" variant="primary" pending={pending} pendingLabel="Clearing…">
        Clear
      </Button>
      <FormError result={result} className="w-full" />
    </form>
  );
}
