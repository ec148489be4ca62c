'use server';

import { endPersonSessions, savePerson } from '@/lib/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

/** Adds a person or changes one's name, role and teams (admins only; the library checks). */
export async function savePersonAction(_previous: ActionResult<{ email: string }> | undefined, formData: FormData) {
  return runAction(
    async (ctx) => {
      const teams = field(formData, 'teams')
        .split(',')
        .map((team) => team.trim())
        .filter(Boolean);
      const email = field(formData, 'email');
      await savePerson(ctx, {
        email,
        displayName: field(formData, 'displayName'),
        role: field(formData, 'role') as 'viewer',
        teams,
      });
      return { email };
    },
    ['/settings/people'],
  );
}

/** "Sign out everywhere" for a person: ends all their sessions (admins only, audit-logged; the library checks). */
export async function endPersonSessionsAction(
  _previous: ActionResult<{ email: string }> | undefined,
  formData: FormData,
) {
  return runAction(
    async (ctx) => {
      const email = field(formData, 'email');
      await endPersonSessions(ctx, { email });
      return { email };
    },
    ['/settings/people'],
  );
}
