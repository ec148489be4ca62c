import 'server-only';
import { revalidatePath } from 'next/cache';
import { HoldfastError, InvalidInputError, type CoreContext, type FieldErrors } from '@holdfast/engine/core';
import type { ErrorCode } from '@holdfast/protocol/error-codes';
import { corePolicyFrom, getEnvironment } from '@holdfast/engine/env';
import { rememberOwnWrite } from './read-source/read-console';
import { isDatabaseUnavailable } from './database-outage';
import { getClock, getDb } from './db';
import { logUnexpectedError } from './log-error';
import { getCurrentPerson } from './session';

export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; code: ErrorCode; message: string; fieldErrors?: FieldErrors };

/**
 * Every server action goes through here: who is asking (from the session,
 * never from the form), the library call (which validates its input and
 * checks the person may act), all on the primary, then a refresh of the
 * pages that show the change. Expected failures come back as a code and a message; anything
 * unexpected is logged and shown as a generic error, never its message.
 */
export async function runAction<T>(
  work: (ctx: CoreContext) => Promise<T>,
  revalidate: string[] = [],
): Promise<ActionResult<T>> {
  try {
    // Inside the try: reading the session may query the database, which may be down.
    const person = await getCurrentPerson();
    if (!person) return { ok: false, code: 'UNAUTHENTICATED', message: 'Your session has ended: sign in again.' };
    const data = await work({
      db: getDb(),
      actor: person,
      clock: getClock(),
      policy: corePolicyFrom(getEnvironment()),
    });
    // Before the refresh: the pages re-rendered now must not read the state from before this write off a lagging replica.
    await rememberOwnWrite();
    for (const path of revalidate) revalidatePath(path);
    return { ok: true, data };
  } catch (error) {
    if (error instanceof InvalidInputError)
      return { ok: false, code: error.code, message: error.message, fieldErrors: error.fieldErrors };
    if (error instanceof HoldfastError) return { ok: false, code: error.code, message: error.message };
    if (isDatabaseUnavailable(error)) {
      return {
        ok: false,
        code: 'DATABASE_UNAVAILABLE',
        message: 'The database is unavailable right now, so nothing was changed; try again in a moment.',
      };
    }
    logUnexpectedError(error);
    return { ok: false, code: 'INTERNAL_ERROR', message: 'Something went wrong on the server; it has been logged.' };
  }
}

/** A form field as text, for passing on to the library's own validation. */
export function field(formData: FormData, name: string): string {
  const value = formData.get(name);
  return typeof value === 'string' ? value : '';
}

/** A form's number as the library should see it: left blank it is absent (named by the library if required), not 0. */
export function numberFrom(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

/** A number field by name, as numberFrom reads it. */
export function optionalNumberField(formData: FormData, name: string): number | undefined {
  return numberFrom(field(formData, name));
}
