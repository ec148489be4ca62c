import 'server-only';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import { proxySettingsFrom, resolveProxyIdentity } from '../auth/proxy-identity';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS, signSessionToken, verifySessionToken } from '../auth/session-token';
import { ensureProxyPerson, loadPersonActor, type Actor } from '../core';
import { getEnvironment } from '../env';
import { getDb } from './db';

export type PersonActor = Extract<Actor, { type: 'person' }>;

function sessionSecret(): string {
  const secret = getEnvironment().SESSION_SECRET;
  if (!secret) throw new Error('SESSION_SECRET is not set: start Holdfast with `npm start`, which provides one');
  return secret;
}

/**
 * The person asking, read once per request: from the signed session cookie in
 * demo mode, from the SSO proxy's trusted headers in proxy mode. Role and
 * teams always come from the database, never from the cookie or the request.
 */
export const getCurrentPerson = cache(async (): Promise<PersonActor | undefined> => {
  const env = getEnvironment();
  if (env.AUTH_MODE === 'proxy') {
    const identity = resolveProxyIdentity(await headers(), proxySettingsFrom(env));
    return identity.ok ? ensureProxyPerson(getDb(), identity) : undefined;
  }
  const email = await verifySessionToken((await cookies()).get(SESSION_COOKIE)?.value, sessionSecret());
  return email ? loadPersonActor(getDb(), email) : undefined;
});

/** For pages: the signed-in person, or a redirect to the sign-in page. */
export async function requirePerson(): Promise<PersonActor> {
  const person = await getCurrentPerson();
  if (!person) redirect('/sign-in');
  return person;
}

async function servedOverHttps(): Promise<boolean> {
  const requestHeaders = await headers();
  return requestHeaders.get('x-forwarded-proto') === 'https' || (requestHeaders.get('origin') ?? '').startsWith('https:');
}

/** Starts a session for a known person (demo sign-in). */
export async function startSession(email: string): Promise<void> {
  (await cookies()).set(SESSION_COOKIE, await signSessionToken(email, sessionSecret()), {
    httpOnly: true,
    sameSite: 'lax',
    secure: await servedOverHttps(),
    path: '/',
    maxAge: SESSION_LIFETIME_SECONDS,
  });
}

export async function endSession(): Promise<void> {
  (await cookies()).delete(SESSION_COOKIE);
}
