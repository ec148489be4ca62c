import type { Executor } from '../../db/client';

/**
 * Hot statements are built once per database handle and then only executed
 * with new placeholder values: building a drizzle query costs more CPU than
 * PostgreSQL spends running these small statements. A transaction is a new
 * handle each time, so a statement run inside one is built again on every
 * call: use fixedStatement (run-statement.ts) for those, as the key claim does.
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
