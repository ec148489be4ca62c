import type { PersonActor } from '@/lib/server/session';

/** Who is signed in, with their role and teams, and the way out (the page passes its sign-out action). */
export function SignedInPerson({ person, signOut }: { person: PersonActor; signOut: () => Promise<void> }) {
  return (
    <div className="px-3 py-2 text-[12px]" data-testid="signed-in-person">
      <div className="truncate font-medium text-ink" title={person.id}>
        {person.id}
      </div>
      <div className="text-muted">
        <span data-testid="signed-in-role">{person.role}</span>
        {person.teams.length > 0 ? ` · ${person.teams.join(', ')}` : ''}
      </div>
      <form action={signOut} className="mt-1">
        <button type="submit" className="text-accent hover:underline">
          Sign out
        </button>
      </form>
    </div>
  );
}
