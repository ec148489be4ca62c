import { type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client';
import { type Actor, DEFAULT_CORE_POLICY, type CoreContext } from '../kernel/context';
import { cutToLength } from '@holdfast/protocol/validation';
import { MAX_HOLD_DETAIL } from '@holdfast/protocol/inputs/hold-input';

/** An owner's name, or a placeholder for it in a statement built once. */
type OwnerValue = string | Placeholder;

/**
 * The one rule for who may own a hold or a task, applied to every owner an
 * agent names (a hold it opens, its task's owner on the first begin, a dead
 * letter's hold): `team:<name>` of a known team — one people are in, one an
 * alert channel is routed to, or the configured default owner — or
 * `person:<email>` of a person in the people table. Anything else is given the
 * default owner (HOLDFAST_DEFAULT_OWNER) rather than refused: the work is
 * parked with someone who will look at it, never lost, and an agent cannot
 * invent owner teams (each one a metric label, an alert route and a page).
 */
function isKnownOwner(owner: OwnerValue, defaultOwner: OwnerValue): SQL<boolean> {
  return sql<boolean>`(
    ${owner}::text = ${defaultOwner}::text
    or (${owner}::text like 'team:%' and (
      exists (select 1 from teams where name = substr(${owner}::text, 6))
      or exists (select 1 from alert_channels where team = substr(${owner}::text, 6) and deleted_at is null)))
    or (${owner}::text like 'person:%' and exists (select 1 from people where email = lower(substr(${owner}::text, 8)))))`;
}

/** A known owner as it is stored: a person as their id is written (ownersOf), lower-case like the people table. */
const normalizedOwner = (owner: OwnerValue) =>
  sql<string>`(case when ${owner}::text like 'person:%' then 'person:' || lower(substr(${owner}::text, 8)) else ${owner}::text end)`;

/**
 * The owner to store for the one an agent named: itself when known, else the default owner. For an INSERT's
 * values; a statement built once (fixedStatement) passes placeholders.
 */
export function knownOwnerOrDefault(owner: OwnerValue, defaultOwner: OwnerValue): SQL<string> {
  return sql<string>`(case when ${isKnownOwner(owner, defaultOwner)} then ${normalizedOwner(owner)} else ${defaultOwner}::text end)`;
}

/** The deployment's default owner (HOLDFAST_DEFAULT_OWNER through ctx.policy), team:platform when none is set. */
export function defaultOwnerOf(ctx: Pick<CoreContext, 'policy'>): string {
  return ctx.policy?.defaultOwner ?? DEFAULT_CORE_POLICY.defaultOwner!;
}

/** The owner a hold gets for the one requested, and the requested one when it was not known. */
export async function resolveOwner(
  db: Executor,
  owner: string,
  defaultOwner: string,
): Promise<{ owner: string; unknownOwner?: string }> {
  const [row] = await db.execute<{ known: boolean; owner: string }>(
    sql`select ${isKnownOwner(owner, defaultOwner)} as known, ${normalizedOwner(owner)} as owner`,
  );
  return row?.known ? { owner: row.owner } : { owner: defaultOwner, unknownOwner: owner };
}

/**
 * The owner and detail of a hold as an agent asked for it: an owner that is not
 * known is replaced by the default owner, and the detail says which owner was
 * asked for (so does the audit record, `requestedOwner`). People and the
 * sweeper are trusted with the owners they name (a sweep names its task's
 * owner, checked when the task was first seen, or the configured default).
 */
export async function knownHoldOwner(
  db: Executor,
  ctx: Pick<CoreContext, 'policy'>,
  actor: Actor,
  hold: { owner: string; detail: string },
): Promise<{ owner: string; detail: string; requestedOwner?: string }> {
  if (actor.type !== 'agent') return hold;
  const { owner, unknownOwner } = await resolveOwner(db, hold.owner, defaultOwnerOf(ctx));
  if (!unknownOwner) return { owner, detail: hold.detail };
  const note = `\n\nHeld for ${owner}: the owner named, "${cutToLength(unknownOwner, 200)}", is not a known team or person.`;
  return {
    owner,
    detail: `${cutToLength(hold.detail, MAX_HOLD_DETAIL - note.length)}${note}`,
    requestedOwner: unknownOwner,
  };
}
