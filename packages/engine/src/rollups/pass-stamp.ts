import { sql } from 'drizzle-orm';

/**
 * The stamp a rollup pass puts on what it stores in `table` (its stored_at),
 * for telling the last pass's rows from the previous pass's: the database's
 * statement time, but always after every stamp already there. Passes run one
 * at a time (rollup_state's lock), so the stamps follow the order they ran
 * even where instances' clocks disagree or the database's clock steps back;
 * a stamp behind an older one would make the next pass keep the older rows
 * as the last pass's.
 */
export function passStamp(table: 'rollup_spans') {
  // greatest() skips the null max of an empty table.
  return sql`greatest(statement_timestamp(), (select max(stored_at) from ${sql.identifier(table)}) + interval '1 microsecond')`;
}
