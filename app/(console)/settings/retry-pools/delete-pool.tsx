'use client';

import { useActionState, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { deletePoolAction } from './actions';

/** Deletes one pool after a confirmation with a reason; the server checks the role again. */
export function DeletePool({ poolId, scope }: { poolId: number; scope: string }) {
  const [result, submit, pending] = useActionState(deletePoolAction, undefined);
  const [confirming, setConfirming] = useState(false);
  const id = useId();
  if (result?.ok)
    return (
      <p role="status" className="text-[12px]">
        {result.data.changed ? 'Deleted.' : 'Already deleted: nothing changed.'}
      </p>
    );
  if (!confirming) {
    return (
      <Button
        variant="danger-link"
        onClick={() => setConfirming(true)}
        className="text-[12px]"
        aria-label={`Delete the pool of ${scope}`}
      >
        Delete…
      </Button>
    );
  }
  return (
    <form action={submit} className="relative flex min-w-64 flex-col gap-1.5" data-testid="delete-pool-form">
      <input type="hidden" name="poolId" value={poolId} />
      <p className="text-[12px]">
        Delete the pool of {scope}? Its steps&apos; retries are then limited only by each task&apos;s allowance.
      </p>
      <Field label="Reason for deleting" id={`${id}-reason`} hideLabel>
        <Input name="reason" required placeholder="Why (kept in the audit log)" size="sm" />
      </Field>
      <span className="flex gap-1.5">
        <Button type="submit" variant="danger" pending={pending} pendingLabel="Deleting…">
          Delete pool
        </Button>
        <Button onClick={() => setConfirming(false)}>Keep it</Button>
      </span>
      <FormError result={result} />
    </form>
  );
}
