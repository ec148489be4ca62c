'use server';

import { redirect } from 'next/navigation';
import { z } from 'zod';
import { loadPersonActor } from '@/lib/core';
import { getEnvironment } from '@/lib/env';
import { getDb } from '@/lib/server/db';
import { endSession, startSession } from '@/lib/server/session';

const signInForm = z.object({ email: z.string().trim().toLowerCase().email() });

/** Demo mode only: signs in as one of the listed people. */
export async function signInAsDemoPerson(formData: FormData): Promise<void> {
  if (getEnvironment().AUTH_MODE !== 'demo') redirect('/sign-in');
  const parsed = signInForm.safeParse({ email: formData.get('email') });
  const person = parsed.success ? await loadPersonActor(getDb(), parsed.data.email) : undefined;
  if (!person) redirect('/sign-in?error=unknown');
  await startSession(person.id);
  redirect('/');
}

export async function signOut(): Promise<void> {
  await endSession();
  const env = getEnvironment();
  redirect(env.AUTH_MODE === 'proxy' && env.AUTH_PROXY_SIGN_OUT_URL ? env.AUTH_PROXY_SIGN_OUT_URL : '/sign-in');
}
