'use client';

import { useActionState } from 'react';
import { savePersonAction } from './actions';

export interface PersonFormValues {
  email: string;
  displayName: string;
  role: 'viewer' | 'responder' | 'admin';
  teams: string[];
}

/** One row's editor, or (without `person`) the form that adds someone. */
export function PersonForm({ person }: { person?: PersonFormValues }) {
  const [result, submit, pending] = useActionState(savePersonAction, undefined);
  const id = person?.email ?? 'new';
  return (
    <form action={submit} className="flex flex-wrap items-center gap-2" data-testid={`person-form-${id}`}>
      {person ? (
        <input type="hidden" name="email" value={person.email} />
      ) : (
        <input
          name="email"
          type="email"
          required
          aria-label="Email"
          placeholder="email"
          className="rounded border border-line bg-surface px-2 py-1 text-[12px]"
        />
      )}
      <input
        name="displayName"
        required
        aria-label="Name"
        defaultValue={person?.displayName}
        placeholder="name"
        className="rounded border border-line bg-surface px-2 py-1 text-[12px]"
      />
      <select
        name="role"
        aria-label="Role"
        defaultValue={person?.role ?? 'viewer'}
        className="rounded border border-line bg-surface px-1.5 py-1 text-[12px]"
      >
        <option value="viewer">viewer</option>
        <option value="responder">responder</option>
        <option value="admin">admin</option>
      </select>
      <input
        name="teams"
        aria-label="Teams"
        defaultValue={person?.teams.join(', ')}
        placeholder="teams, comma-separated"
        className="rounded border border-line bg-surface px-2 py-1 text-[12px]"
      />
      <button
        type="submit"
        disabled={pending}
        className="rounded bg-accent px-2.5 py-1 text-[12px] font-medium text-on-accent disabled:opacity-60"
      >
        {pending ? 'Saving…' : person ? 'Save' : 'Add person'}
      </button>
      {result && !result.ok ? (
        <p role="alert" className="w-full text-[12px] text-danger">
          {result.message}
        </p>
      ) : result?.ok ? (
        <p role="status" className="text-[12px] text-ok">
          Saved
        </p>
      ) : null}
    </form>
  );
}
