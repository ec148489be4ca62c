import { databaseErrorCode } from '@holdfast/engine/db';
import { EnvironmentError } from '@holdfast/engine/env';

/**
 * One line that says what stopped start-up, without a stack trace for the
 * failures a person can fix (bad configuration, an unreachable database).
 */
export function describeStartupError(error: unknown): string {
  if (error instanceof EnvironmentError) return error.message;
  const code = databaseErrorCode(error);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'CONNECT_TIMEOUT') {
    return `Cannot reach the database in DATABASE_URL (${code}): is PostgreSQL running there?`;
  }
  if (code === 'EADDRINUSE') {
    return "The dashboard's port is already in use (EADDRINUSE): stop what listens there, or set PORT";
  }
  if (code === '28P01' || code === '28000') {
    return 'The database in DATABASE_URL refused the credentials';
  }
  if (code === '3D000') {
    return 'The database named in DATABASE_URL does not exist: create it first';
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? 'start-up failed';
}
