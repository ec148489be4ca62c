import 'server-only';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import { proxySettingsFrom, resolveProxyIdentity } from '../auth/proxy-identity';
import { hostRulesFrom, servedOverHttps } from '../auth/request-host';
import { SESSION_COOKIE, SESSION_LIFETIME_SECONDS, signSessionToken, verifySessionToken } from '../auth/session-token';
import {
  endOwnSessions,
  ensureProxyPerson,
  loadSessionPerson,
  loadSessionVersion,
  type Actor,
} from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import { getDb } from './db';

export type PersonActor = Extract<Actor, { type: 'person' }>;

function sessionSecret(): string {
  const secret = getEnvironment().SESSION_SECRET;
  if (!secret) throw new Error('SESSION_SECRET is not set: start Holdfast with `npm start`, which provides one');
  return secret;
}

async function readSession() {
  return verifySessionToken((await cookies()).get(SESSION_COOKIE)?.value, sessionSecret());
}

/**
 * The person asking, read once per request: from the signed session cookie in
 * demo mode, from the SSO proxy's trusted headers in proxy mode. Role and
 * teams always come from the database, never from the cookie or the request,
 * and a cookie counts only while its session version is the person's current one.
 */
export const getCurrentPerson = cache(async (): Promise<PersonActor | undefined> => {
  const env = getEnvironment();
  if (env.AUTH_MODE === 'proxy') {
    const identity = resolveProxyIdentity(await headers(), proxySettingsFrom(env));
    return identity.ok ? ensureProxyPerson(getDb(), identity) : undefined;
  }
  const session = await readSession();
  return session ? loadSessionPerson(getDb(), session) : undefined;
});

/** For pages: the signed-in person, or a redirect to the sign-in page. */
export async function requirePerson(): Promise<PersonActor> {
  const person = await getCurrentPerson();
  if (!person) redirect('/sign-in');
  return person;
}

/** Starts a session for a known person (demo sign-in), at their current session version. */
export async function startSession(email: string): Promise<void> {
  const sessionVersion = await loadSessionVersion(getDb(), email);
  if (sessionVersion === undefined) throw new Error('startSession: unknown person');
  const requestHeaders = await headers();
  // The request's own protocol is http (`next start` does not speak TLS); only a trusted proxy says https.
  const env = getEnvironment();
  const secure =
    servedOverHttps('http:', requestHeaders, hostRulesFrom(env)) ||
    env.HOLDFAST_PUBLIC_URL?.startsWith('https:') === true;
  (await cookies()).set(SESSION_COOKIE, await signSessionToken({ email, sessionVersion }, sessionSecret()), {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: SESSION_LIFETIME_SECONDS,
  });
}

/**
 * Signs out by raising the person's session version: every session of theirs
 * ends, on every device, including a copy of this cookie taken earlier.
 */
export async function endSession(): Promise<void> {
  const session = getEnvironment().AUTH_MODE === 'proxy' ? undefined : await readSession();
  if (session) await endOwnSessions(getDb(), session);
  (await cookies()).delete(SESSION_COOKIE);
}
