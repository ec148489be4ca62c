'use client';

import { useActionState, useEffect, useId } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { useToast } from '@/components/ui/toast';
import { acknowledgeAlertAction } from './actions';

/** How long an acknowledgement may be given for, as the form offers it (blank: until the alert resolves). */
const DURATIONS = [
  ['60', 'for 1 hour'],
  ['240', 'for 4 hours'],
  ['1440', 'for 24 hours'],
  ['', 'until it resolves'],
] as const;

/**
 * "I have it": a responder takes a firing alert for a while, with a note the others on call read. The alert keeps
 * firing and resolving as before; the console counts it apart from those nobody has taken.
 */
export function AcknowledgeForm({ alertId, title }: { alertId: number; title: string }) {
  const id = useId();
  const toast = useToast();
  const [result, submit, pending] = useActionState(acknowledgeAlertAction, undefined);
  useEffect(() => {
    if (result?.ok) toast.show(`Acknowledged: ${title}`, { tone: 'success' });
    else if (result) toast.show(`Not acknowledged: ${result.message}`, { tone: 'error' });
  }, [result, title, toast]);
  return (
    <details className="mt-1" data-testid="acknowledge">
      <summary className="cursor-pointer text-accent">Acknowledge…</summary>
      <form action={submit} className="mt-1 flex flex-wrap items-end gap-2">
        <input type="hidden" name="alertId" value={alertId} />
        <Field label="For how long" id={`${id}-for`}>
          <Select name="forMinutes" size="sm" defaultValue="60">
            {DURATIONS.map(([minutes, label]) => (
              <option key={label} value={minutes}>
                {label}
              </option>
            ))}
          </Select>
        </Field>
        <Field label="Note" id={`${id}-note`}>
          <Input name="note" required size="sm" placeholder="What you're doing" />
        </Field>
        <Button type="submit" variant="primary" pending={pending} pendingLabel="Acknowledging…">
          Acknowledge
        </Button>
        <FormError result={result} className="w-full" />
      </form>
    </details>
  );
}
