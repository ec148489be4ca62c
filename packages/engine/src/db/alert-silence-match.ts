import { sql, type SQL } from 'drizzle-orm';

/**
 * Which silences match an alert, as SQL: the one definition the evaluator (hold a notification back), the sidebar's
 * counts and the console's lists all use, so "silenced" means the same everywhere. A silence matches an alert when
 * it is in force at `now` (started, not past its end, not ended early), names the alert's rule or none, and its
 * pattern and team (where given) match the alert's identity and team.
 */

/** The alert's fields as SQL expressions: a table's columns, or the values of an alert about to be stored. */
export interface SilencedFields {
  kind: SQL;
  identity: SQL;
  team: SQL;
}

/** The columns of `alert_instances` as a query that names the table itself (not an alias) reads them. */
export const instanceColumns: SilencedFields = {
  kind: sql.raw('alert_instances.kind'),
  identity: sql.raw('alert_instances.identity'),
  team: sql.raw('alert_instances.team'),
};

const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;

/**
 * The pattern as a LIKE pattern: `*` is any text, and LIKE's own wildcards (`%`, `_`) and its escape (`\`) are
 * taken literally, so `queue:a_b` matches that queue only and not `queue:axb`.
 */
const likePattern = sql`replace(replace(replace(replace(silence.identity_pattern,
  ${'\\'}, ${'\\\\'}), '%', ${'\\%'}), '_', ${'\\_'}), '*', '%')`;

/** A condition on `alert_silences silence`: in force at `now` and matching the alert. */
export function silenceMatches(alert: SilencedFields, now: Date): SQL {
  return sql`silence.ended_at is null and silence.starts_at <= ${at(now)} and silence.ends_at > ${at(now)}
    and (silence.kind is null or silence.kind = ${alert.kind})
    and (silence.identity_pattern is null or ${alert.identity} like ${likePattern})
    and (silence.team is null or silence.team = ${alert.team})`;
}

/** True when some silence in force at `now` matches the alert. */
export function isSilenced(alert: SilencedFields, now: Date): SQL<boolean> {
  return sql<boolean>`exists (select 1 from alert_silences silence where ${silenceMatches(alert, now)})`;
}

/** True when this one silence is in force at `now` and matches the alert. `silenceId`: a number or a column. */
export function isSilencedBy(silenceId: number | SQL, alert: SilencedFields, now: Date): SQL<boolean> {
  return sql<boolean>`exists (select 1 from alert_silences silence
    where silence.id = ${silenceId} and ${silenceMatches(alert, now)})`;
}

/** The id of the silence matching the alert at `now` that lasts longest (null: none), the one the console names. */
export function matchingSilenceId(alert: SilencedFields, now: Date): SQL<number | null> {
  return sql<number | null>`(select silence.id from alert_silences silence where ${silenceMatches(alert, now)}
    order by silence.ends_at desc, silence.id limit 1)`;
}
