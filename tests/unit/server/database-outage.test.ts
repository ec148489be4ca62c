import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import {
  DatabaseDeadlineError,
  isDatabaseUnavailable,
  whenDeadlinePasses,
  withDatabaseDeadline,
} from '../../../lib/server/database-outage';

const driverError = (code: string, name = 'Error') => Object.assign(new Error(code), { code, name });

describe('isDatabaseUnavailable', () => {
  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'CONNECTION_CLOSED',
    'CONNECTION_ENDED',
    'CONNECTION_DESTROYED',
    'CONNECT_TIMEOUT',
  ])('knows the connection error %s', (code) => {
    expect(isDatabaseUnavailable(driverError(code))).toBe(true);
  });

  it.each(['08006', '08001', '57P01', '57P02', '57P03', '53300', '57014', '25006'])('knows the SQLSTATE %s', (code) => {
    expect(isDatabaseUnavailable(driverError(code, 'PostgresError'))).toBe(true);
  });

  it('takes a standby refusing an unlogged table during recovery for an outage, and other unsupported features not', () => {
    const standby = driverError('0A000', 'PostgresError');
    standby.message = 'cannot access temporary or unlogged relations during recovery';
    expect(isDatabaseUnavailable(standby)).toBe(true);
    const unsupported = driverError('0A000', 'PostgresError');
    unsupported.message = 'cannot use a subquery here';
    expect(isDatabaseUnavailable(unsupported)).toBe(false);
  });

  it('looks through drizzle 0.45 wrapping the driver error as its cause', () => {
    expect(isDatabaseUnavailable(new DrizzleQueryError('select 1', [], driverError('CONNECTION_CLOSED')))).toBe(true);
    expect(isDatabaseUnavailable(new DrizzleQueryError('select 1', [], driverError('23505', 'PostgresError')))).toBe(
      false,
    );
  });

  it('takes a unique violation, a bad value or a bug for what they are, not an outage', () => {
    expect(isDatabaseUnavailable(driverError('23505', 'PostgresError'))).toBe(false);
    expect(isDatabaseUnavailable(driverError('22021', 'PostgresError'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe('withDatabaseDeadline', () => {
  it('gives the answer when it comes in time, and a DatabaseDeadlineError (an outage) when it never comes', async () => {
    expect(await withDatabaseDeadline(Promise.resolve(7), 1_000)).toBe(7);
    const never = new Promise<never>(() => {});
    const error = await withDatabaseDeadline(never, 20).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DatabaseDeadlineError);
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('answers DatabaseDeadlineError when the work hangs, and tells the pool to replace itself; in time it tells nothing', async () => {
    let hooks = 0;
    whenDeadlinePasses(() => (hooks += 1));
    const hung = new Promise<never>(() => {});
    await expect(withDatabaseDeadline(hung, 20)).rejects.toBeInstanceOf(DatabaseDeadlineError);
    expect(hooks).toBe(1);
    await expect(withDatabaseDeadline(Promise.resolve('answered'), 1_000)).resolves.toBe('answered');
    expect(hooks).toBe(1);
  });
});
