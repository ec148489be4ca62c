'use client';

import { useActionState } from 'react';
import { Button } from '@/components/ui/button';
import { FormError } from '@/components/ui/form-error';
import { endPersonSessionsAction } from './actions';

/** Ends every session of one person at once, e.g. for a lost laptop. */
export function SignOutEverywhere({ email }: { email: string }) {
  const [result, submit, pending] = useActionState(endPersonSessionsAction, undefined);
  return (
    <form action={submit} className="flex items-center gap-2" data-testid={`sign-out-everywhere-${email}`}>
      <input type="hidden" name="email" value={email} />
      <Button type="submit" pending={pending} pendingLabel="Signing out…" aria-label={`Sign out ${email} everywhere`}>
        Sign out everywhere
      </Button>
      {result && !result.ok ? (
        <FormError result={result} />
      ) : result?.ok ? (
        <p role="status" className="text-[12px] text-ok">
          Signed out
        </p>
      ) : null}
    </form>
  );
}
