'use client';

import { useActionState } from 'react';
import { Button } from '@/components/ui/button';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
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
        <Input name="email" type="email" required aria-label="Email" placeholder="email" size="sm" />
      )}
      <Input
        name="displayName"
        required
        aria-label="Name"
        defaultValue={person?.displayName}
        placeholder="name"
        size="sm"
      />
      <Select name="role" aria-label="Role" defaultValue={person?.role ?? 'viewer'} size="sm">
        <option value="viewer">viewer</option>
        <option value="responder">responder</option>
        <option value="admin">admin</option>
      </Select>
      <Input
        name="teams"
        aria-label="Teams"
        defaultValue={person?.teams.join(', ')}
        placeholder="teams, comma-separated"
        size="sm"
      />
      <Button type="submit" variant="primary" pending={pending} pendingLabel="Saving…">
        {person ? 'Save' : 'Add person'}
      </Button>
      {result && !result.ok ? (
        <FormError result={result} className="w-full" />
      ) : result?.ok ? (
        <p role="status" className="text-[12px] text-ok">
          Saved
        </p>
      ) : null}
    </form>
  );
}
