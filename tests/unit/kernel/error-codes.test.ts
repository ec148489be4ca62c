import { describe, expect, it, vi } from 'vitest';
import { STOP_CODES, TRY_LATER_CODES } from '@holdfast/protocol/api/endpoints';
import { errorCodes, isErrorCode, type ErrorCode } from '@holdfast/protocol/error-codes';
import {
  AttemptConflictError,
  ForbiddenError,
  GuardFailedError,
  HoldfastError,
  InvalidInputError,
  KeyPayloadMismatchError,
  NotFoundError,
  NotHolderError,
  RedriveRefusedError,
  StaleTokenError,
  StateConflictError,
} from '@holdfast/protocol/errors';
import { stopCodes as stepStopCodes, waitCodes as stepWaitCodes } from '@holdfast/protocol/steps/step-protocol';
import { databaseUnavailableResponse, errorResponse, problemResponse, statusByCode } from '../../../lib/server/problem';

// Checked by the type-checker: lib/api's lists and the step protocol's codes name only ErrorCodes.
const tryLater = TRY_LATER_CODES satisfies readonly ErrorCode[];
const stop = STOP_CODES satisfies readonly ErrorCode[];
const stepWaits = stepWaitCodes satisfies readonly ErrorCode[];
const stepStops = stepStopCodes satisfies readonly ErrorCode[];

async function answer(code: ErrorCode, extra: Record<string, unknown> & { retryAfterSeconds?: number } = {}) {
  const response = problemResponse(statusByCode[code], code, `detail of ${code}`, extra);
  return { response, body: (await response.json()) as Record<string, unknown> };
}

describe('the ErrorCode union and the status map', () => {
  it('gives every code exactly one status, and names nothing else', () => {
    expect(Object.keys(statusByCode).sort()).toEqual([...errorCodes].sort());
    expect(new Set(errorCodes).size).toBe(errorCodes.length);
    for (const status of Object.values(statusByCode)) expect(status).toBeGreaterThanOrEqual(400);
  });

  it("refuses, at compile time, a code that is not one and a status that is not its code's", () => {
    // @ts-expect-error: not an ErrorCode
    expect(() => problemResponse(400, 'NOT_A_CODE', 'x')).not.toThrow();
    // @ts-expect-error: NOT_FOUND is answered 404
    expect(() => problemResponse(400, 'NOT_FOUND', 'x')).not.toThrow();
    class Unlisted extends HoldfastError {
      // @ts-expect-error: a HoldfastError's code is an ErrorCode
      readonly code = 'UNLISTED';
    }
    expect(new Unlisted('x').code).toBe('UNLISTED');
  });

  it('knows its own codes', () => {
    expect(errorCodes.every(isErrorCode)).toBe(true);
    expect([isErrorCode('NOT_A_CODE'), isErrorCode(404), isErrorCode(undefined)]).toEqual([false, false, false]);
  });
});

describe('the stop and try-later lists agree with the map', () => {
  it('keeps the two lists apart', () => {
    expect(tryLater.filter((code) => (stop as readonly ErrorCode[]).includes(code))).toEqual([]);
  });

  it.each(tryLater)('try-later %s is answered retryable, with its status and Retry-After', async (code) => {
    const { response, body } = await answer(code, { retryAfterSeconds: 3 });
    expect(response.status).toBe(statusByCode[code]);
    expect(body).toMatchObject({ code, status: statusByCode[code], retryable: true, retryAfterSeconds: 3 });
    expect(response.headers.get('retry-after')).toBe('3');
  });

  it.each(stop)('stop %s is answered not retryable, with a 4xx status', async (code) => {
    const { response, body } = await answer(code);
    expect(response.status).toBe(statusByCode[code]);
    expect(response.status).toBeLessThan(500);
    expect(body).toMatchObject({ code, retryable: false });
  });

  it('the step protocol waits are try-later codes and its stops are stop codes', () => {
    expect(stepWaits.filter((code) => !(tryLater as readonly ErrorCode[]).includes(code))).toEqual([]);
    expect(stepStops.filter((code) => !(stop as readonly ErrorCode[]).includes(code))).toEqual([]);
  });

  it('an outage is answered retryable (503 with Retry-After) although it is not on the try-later list', async () => {
    const response = databaseUnavailableResponse();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).not.toBeNull();
    expect(await response.json()).toMatchObject({ code: 'DATABASE_UNAVAILABLE', retryable: true });
  });
});

describe('errorResponse', () => {
  it.each([
    new InvalidInputError('bad', { field: ['is bad'] }),
    new AttemptConflictError('x'),
    new KeyPayloadMismatchError('x'),
    new StaleTokenError('x'),
    new NotHolderError('x'),
    new GuardFailedError('x', ['g']),
    new NotFoundError('x'),
    new StateConflictError('x'),
    new ForbiddenError('x'),
    new RedriveRefusedError('x', ['redrive_limit']),
  ])("answers %s with its code's status", async (error) => {
    const response = errorResponse(error);
    expect(response.status).toBe(statusByCode[error.code]);
    expect(await response.json()).toMatchObject({ code: error.code, detail: error.message });
  });

  it('answers anything else 500 INTERNAL_ERROR without its message', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const response = errorResponse(new Error('secret connection string'));
    log.mockRestore();
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(JSON.stringify(body)).not.toContain('secret');
  });
});
