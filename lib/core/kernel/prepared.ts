import type { Executor } from '../../db/client';

/**
 * Hot statements are built once per database handle (a pool or a transaction)
 * and then only executed with new placeholder values: building a drizzle query
 * costs more CPU than PostgreSQL spends running these small statements.
 */
export function cachedStatement<Statement>(build: (db: Executor) => Statement): (db: Executor) => Statement {
  const statements = new WeakMap<Executor, Statement>();
  return (db) => {
    let statement = statements.get(db);
    if (!statement) {
      statement = build(db);
      statements.set(db, statement);
    }
    return statement;
  };
}
