'use server';

import { redirect } from 'next/navigation';
import { parsePersonEmail } from '@holdfast/engine/core';
import { RETURN_TO_PARAM, safeReturnTo } from '@/lib/auth/return-to';
import { loadPersonActor } from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import { getDb } from '@/lib/server/db';
import { endSession, startSession } from '@/lib/server/session';

/** Demo mode only: signs in as one of the listed people. */
export async function signInAsDemoPerson(formData: FormData): Promise<void> {
  if (getEnvironment().AUTH_MODE !== 'demo') redirect('/sign-in');
  // The one e-mail rule people management and the SSO proxy use.
  const returnTo = safeReturnTo(formData.get(RETURN_TO_PARAM));
  const again = (error: string) =>
    `/sign-in?error=${error}${returnTo === '/' ? '' : `&${RETURN_TO_PARAM}=${encodeURIComponent(returnTo)}`}`;
  const email = parsePersonEmail(formData.get('email'));
  if (!email) redirect(again('email'));
  const person = await loadPersonActor(getDb(), email);
  if (!person) redirect(again('unknown'));
  await startSession(person.id);
  redirect(returnTo);
}

export async function signOut(): Promise<void> {
  await endSession();
  const env = getEnvironment();
  redirect(env.AUTH_MODE === 'proxy' && env.AUTH_PROXY_SIGN_OUT_URL ? env.AUTH_PROXY_SIGN_OUT_URL : '/sign-in');
}
