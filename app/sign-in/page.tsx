import type { Metadata } from 'next';
import { Button } from '@/components/ui/button';
import { InsecureDemoBanner } from '@/components/layout/insecure-demo-banner';
import { redirect } from 'next/navigation';
import { listPeople } from '@holdfast/engine/core';
import { RETURN_TO_PARAM, safeReturnTo } from '@/lib/auth/return-to';
import { getEnvironment } from '@holdfast/engine/env';
import { getDb } from '@/lib/server/db';
import { getCurrentPerson } from '@/lib/server/session';
import { signInAsDemoPerson } from './actions';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

const roleHelp = {
  viewer: 'reads everything; clears holds of their own teams',
  responder: 'on call: clears any hold, redrives dead letters, releases stale locks',
  admin: 'also flips kill switches and manages people and API tokens',
} as const;

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ error?: string; [RETURN_TO_PARAM]?: string }>;
}) {
  const { error, [RETURN_TO_PARAM]: next } = await searchParams;
  // A shared link opened while signed out comes back here as ?next=: it is where the person goes afterwards.
  const returnTo = safeReturnTo(next);
  if (await getCurrentPerson()) redirect(returnTo);
  const proxyMode = getEnvironment().AUTH_MODE === 'proxy';

  return (
    <>
      <InsecureDemoBanner />
      <main className="mx-auto mt-24 max-w-md px-6">
        <div className="mb-6 flex items-center gap-2">
          <img src="/logo.svg" alt="" width={28} height={28} />
          <h1 className="text-xl font-semibold tracking-tight">Sign in to Holdfast</h1>
        </div>
        {proxyMode ? (
          <p className="text-[13px] text-muted">
            Holdfast signs you in through your organisation&apos;s SSO proxy. Open it through the proxy&apos;s address.
          </p>
        ) : (
          <>
            <p className="mb-4 text-[13px] text-muted">
              Demo mode: choose a person. Each role sees only the actions it may take.
            </p>
            {error ? (
              <p role="alert" className="mb-4 rounded-md bg-danger-soft px-3 py-2 text-[13px] text-danger">
                {error === 'email'
                  ? 'That is not an e-mail address (name@domain.tld).'
                  : 'That person is not known here.'}
              </p>
            ) : null}
            <ul className="flex flex-col gap-2">
              {(await listPeople(getDb())).map((person) => (
                <li key={person.email}>
                  <form action={signInAsDemoPerson}>
                    <input type="hidden" name="email" value={person.email} />
                    <input type="hidden" name={RETURN_TO_PARAM} value={returnTo} />
                    <Button type="submit" variant="tile" data-testid={`sign-in-${person.role}`}>
                      <span className="block font-medium">{person.displayName}</span>
                      <span className="block text-[12px] text-muted">
                        {person.role} · {person.teams.join(', ') || 'no team'} — {roleHelp[person.role]}
                      </span>
                    </Button>
                  </form>
                </li>
              ))}
            </ul>
          </>
        )}
      </main>
    </>
  );
}
