'use client';

import { useActionState } from 'react';
import { endPersonSessionsAction } from './actions';

/** Ends every session of one person at once, e.g. for a lost laptop. */
export function SignOutEverywhere({ email }: { email: string }) {
  const [result, submit, pending] = useActionState(endPersonSessionsAction, undefined);
  return (
    <form action={submit} className="flex items-center gap-2" data-testid={`sign-out-everywhere-${email}`}>
      <input type="hidden" name="email" value={email} />
      <button
        type="submit"
        disabled={pending}
        aria-label={`Sign out ${email} everywhere`}
        className="rounded border border-line px-2 py-1 text-[12px] hover:border-accent disabled:opacity-60"
      >
        {pending ? 'Signing out…' : 'Sign out everywhere'}
      </button>
      {result && !result.ok ? (
        <p role="alert" className="text-[12px] text-danger">
          {result.message}
        </p>
      ) : result?.ok ? (
        <p role="status" className="text-[12px] text-ok">
          Signed out
        </p>
      ) : null}
    </form>
  );
}
