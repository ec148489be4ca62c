import { describe, expect, it } from 'vitest';
import {
  classifyError,
  DEFAULT_ERROR_CLASS_RULES,
  type ErrorClassRule,
} from '../../../packages/engine/src/traces/error-class-rules';

/** The default rule table (as migration 0029 seeds it), case by case, then an admin's edits. */
const cases: { status?: number; type?: string; errorClass: string }[] = [
  { status: 429, errorClass: 'rate_limited' },
  { type: 'RateLimitError', errorClass: 'rate_limited' },
  { type: 'Too Many Requests', errorClass: 'rate_limited' },
  { status: 408, errorClass: 'transient' },
  { status: 500, errorClass: 'transient' },
  { status: 503, type: 'ServiceUnavailable', errorClass: 'transient' },
  { status: 599, errorClass: 'transient' },
  { type: 'APIConnectionTimeoutError', errorClass: 'transient' },
  { type: 'ECONNRESET', errorClass: 'transient' },
  { type: 'overloaded_error', errorClass: 'transient' },
  { status: 400, type: 'BadRequestError', errorClass: 'permanent' },
  { status: 404, errorClass: 'permanent' },
  { status: 499, errorClass: 'permanent' },
  // A rate limit named in error.type wins over a 4xx status: the rules apply in order.
  { status: 400, type: 'rate_limit_exceeded', errorClass: 'rate_limited' },
  // SDK class names in error.type or exception.type, on a span with no status (migration 0047).
  { type: 'InternalServerError', errorClass: 'transient' },
  { type: 'APIConnectionError', errorClass: 'transient' },
  { type: 'api_error', errorClass: 'transient' },
  { type: 'AI_NoObjectGeneratedError', errorClass: 'invalid_output' },
  { type: 'AI_TypeValidationError', errorClass: 'invalid_output' },
  { type: 'OutputParserException', errorClass: 'invalid_output' },
  { type: 'AuthenticationError', errorClass: 'permanent' },
  { type: 'NotFoundError', errorClass: 'permanent' },
  { type: 'invalid_request_error', errorClass: 'permanent' },
  // A status wins over a class name that says otherwise: the rules apply in order.
  { status: 503, type: 'BadRequestError', errorClass: 'transient' },
  { type: 'AI_APICallError', errorClass: 'unknown' },
  { type: 'ValueError', errorClass: 'unknown' },
  { errorClass: 'unknown' },
  { status: 302, errorClass: 'unknown' },
];

describe('classifyError with the default rules', () => {
  it.each(cases)('status $status, error.type $type: $errorClass', ({ status, type, errorClass }) => {
    expect(classifyError({ status, type: type ?? '' }, DEFAULT_ERROR_CLASS_RULES)).toBe(errorClass);
  });
});

describe('classifyError with edited rules', () => {
  const edited: ErrorClassRule[] = [
    { position: 5, httpStatusFrom: 409, httpStatusTo: 409, errorTypeContains: null, errorClass: 'transient' },
    ...DEFAULT_ERROR_CLASS_RULES,
    {
      position: 70,
      httpStatusFrom: null,
      httpStatusTo: null,
      errorTypeContains: ['Schema'],
      errorClass: 'invalid_output',
    },
  ];

  it('an earlier rule wins: a 409 is transient, not permanent', () => {
    expect(classifyError({ status: 409, type: '' }, edited)).toBe('transient');
    expect(classifyError({ status: 409, type: '' }, DEFAULT_ERROR_CLASS_RULES)).toBe('permanent');
  });

  it('words match whatever their case', () => {
    expect(classifyError({ status: undefined, type: 'OutputSCHEMAError' }, edited)).toBe('invalid_output');
  });

  it('no rules: every failure is unknown', () => {
    expect(classifyError({ status: 429, type: 'RateLimitError' }, [])).toBe('unknown');
  });
});
