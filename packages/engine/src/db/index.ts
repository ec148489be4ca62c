/** The database layer's face: connections, migrations, the embedded PostgreSQL and its roles, partitions, and the few SQL helpers the read models share. The tables are `@holdfast/engine/db/schema`. */
export { connectDatabase } from './client';
export type { Database, DatabaseConnection, Executor, Transaction } from './client';
export { databaseErrorCode } from './error-code';
export { instanceColumns, isSilenced, isSilencedBy, matchingSilenceId } from './alert-silence-match';
export { likeLiteral } from './like-pattern';
export { getMigrationState } from './migration-state';
export type { MigrationState } from './migration-state';
export { openPostgres } from './connection-url';
export { APP_ROLE, urlForRole } from './database-roles';
export { EMBEDDED_DATABASE_NAME, findFreePort, startEmbeddedPostgres } from './embedded-postgres';
export type { RunningPostgres } from './embedded-postgres';
export { describeVerdict, verifyAuditChain } from './verify-audit-chain';
export { ensureAttemptPartitions } from './attempt-partitions';
export { migrateDatabase, migrateNamedDatabase } from './migrate';
export { poolerRefusal } from './pooler-probe';
export { STANDBY_REFUSAL, leadsToStandby } from './standby-check';
export { loadOrCreateRolePasswords } from './role-passwords';
