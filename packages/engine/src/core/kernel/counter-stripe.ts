import { sql } from 'drizzle-orm';

/** How many rows a hot counter's slice spreads over. */
export const COUNTER_STRIPES = 16;

/**
 * The row of a counter's slice a statement adds to: its connection's (the backend's process id, folded into
 * COUNTER_STRIPES). Every begin of a step adds to its retry pools' slice and every finish to its breakers': one
 * row each would make concurrent steps queue on its lock until each other's commits. A connection's own stripe
 * is never contended by another connection's; readers sum a slice's stripes.
 */
export const counterStripeSql = sql.raw(`(pg_backend_pid() % ${COUNTER_STRIPES})::smallint`);
