import { sql } from 'drizzle-orm';
import type { Executor } from '../../packages/engine/src/db/client';

/**
 * Makes hold owners known (packages/engine/src/core/holds/known-owner.ts), as a deployment's
 * people make them: `team:<name>` as a team (a teams row), `person:<email>` as
 * a viewer in the people table. An owner an agent names that is neither is
 * replaced by the default owner, so a test whose agents name its own owners
 * makes them known first.
 */
export async function addKnownOwners(db: Executor, owners: string[]): Promise<void> {
  for (const owner of owners) {
    const [kind, name] = [owner.slice(0, owner.indexOf(':')), owner.slice(owner.indexOf(':') + 1)];
    if (kind === 'team')
      await db.execute(sql`insert into teams (name, display_name) values (${name}, ${name}) on conflict do nothing`);
    else if (kind === 'person')
      await db.execute(
        sql`insert into people (email, display_name, role) values (${name.toLowerCase()}, ${name}, 'viewer') on conflict do nothing`,
      );
    else throw new Error(`addKnownOwners: ${owner} is not team:<name> or person:<email>`);
  }
}
