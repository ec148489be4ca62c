'use server';

import { endPersonSessions, savePerson } from '@holdfast/engine/core';
import { field, runAction, type ActionResult } from '@/lib/server/action';

export interface PersonFormValues {
  email: string;
  displayName: string;
  role: string;
  teams: string;
  reason: string;
}

export interface SavePersonState {
  result: ActionResult<{ email: string; created: boolean; changed: boolean }>;
  /** What was submitted, so a refused form comes back as it was typed. */
  values: PersonFormValues;
}

/** Adds a person or changes one's name, role and teams, with a reason (admins only; the library checks). */
export async function savePersonAction(
  _previous: SavePersonState | undefined,
  formData: FormData,
): Promise<SavePersonState> {
  const values: PersonFormValues = {
    email: field(formData, 'email'),
    displayName: field(formData, 'displayName'),
    role: field(formData, 'role'),
    teams: field(formData, 'teams'),
    reason: field(formData, 'reason'),
  };
  const result = await runAction(
    async (ctx) => {
      const teams = values.teams
        .split(',')
        .map((team) => team.trim())
        .filter(Boolean);
      const saved = await savePerson(ctx, {
        email: values.email,
        displayName: values.displayName,
        role: values.role as 'viewer',
        teams,
        // Blank is absent: the library says a change needs one, rather than "too short".
        reason: values.reason.trim() === '' ? undefined : values.reason,
      });
      return { email: values.email.trim().toLowerCase(), ...saved };
    },
    ['/settings/people'],
  );
  return { result, values };
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
