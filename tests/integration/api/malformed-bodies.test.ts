import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useApi } from '../../support/api-harness';

/** An hour ago, so the reports stay inside the raw retention whatever day the tests run. */
const anHourAgo = Date.now() - 3_600_000;
const recently = (offsetMs = 0) => new Date(anHourAgo + offsetMs).toISOString();

/**
 * Generated malformed bodies thrown at the attempt and key endpoints: each
 * must get a 4xx problem document, never a 500, and write nothing.
 */
const api = useApi();

const validAttempt = {
  taskId: 'fuzz-task',
  agent: 'fuzz-agent',
  step: 'fuzz-step',
  attemptNumber: 1,
  startedAt: recently(),
  finishedAt: recently(1_000),
  outcome: 'succeeded',
  costMicros: 10,
};
const validClaim = { key: 'fuzz-key/step', requestHash: 'hash' };

/** A value no field of these bodies accepts: wrong type, negative, fractional, or far too long. */
const wrongValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1e9, max: -1 }),
  fc.double({ noNaN: false }).filter((value) => !Number.isInteger(value)),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
  fc.constant('x'.repeat(20_000)),
);

/** A valid body broken one way: a field given a wrong value, a required field dropped, or an unknown field added. */
function corrupted(valid: Record<string, unknown>, required: string[]) {
  const fields = Object.keys(valid);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...fields), wrongValue).map(([field, value]) => ({ ...valid, [field]: value })),
    fc
      .constantFrom(...required)
      .map((field) => Object.fromEntries(Object.entries(valid).filter(([name]) => name !== field))),
    fc
      .tuple(
        fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !fields.includes(name) && name !== '__proto__'),
        fc.jsonValue(),
      )
      .map(([field, value]) => ({ ...valid, [field]: value })),
  );
}

/** Anything at all as the body: JSON of any shape, or text that is not JSON. */
const anyBody = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null'),
  fc.string({ maxLength: 200 }),
);

async function rows() {
  const [counts] = await api.database.db.execute<{ attempts: number; keys: number }>(
    sql`select (select count(*)::int from attempts) as attempts, (select count(*)::int from idempotency_keys) as keys`,
  );
  return counts!;
}

function isValid(body: unknown, valid: Record<string, unknown>): boolean {
  // A corruption that happens to stay valid (a wrong value that is allowed) is not a malformed body.
  return JSON.stringify(body) === JSON.stringify(valid);
}

describe('malformed bodies', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    [
      '/api/v1/attempts',
      validAttempt,
      ['taskId', 'agent', 'step', 'attemptNumber', 'startedAt', 'finishedAt', 'outcome'],
    ],
    ['/api/v1/attempts/batch', { attempts: [validAttempt] }, ['attempts']],
    ['/api/v1/keys/claim', validClaim, ['key', 'requestHash']],
  ];
  for (const [path, valid, required] of cases) {
    it(`${path}: a corrupted body gets a 4xx problem document, never a 500, and writes nothing`, async () => {
      const before = await rows();
      await fc.assert(
        fc.asyncProperty(corrupted(valid, required), async (body) => {
          fc.pre(!isValid(body, valid));
          const response = await api.request(path, { body });
          if (response.status < 400 || response.status >= 500)
            throw new Error(`answered ${response.status} to ${JSON.stringify(body).slice(0, 300)}`);
          expect(response.headers.get('content-type')).toContain('application/problem+json');
          expect(typeof response.body.code).toBe('string');
        }),
        { numRuns: 150, seed: 20_261_130 },
      );
      expect(await rows()).toEqual(before);
    });

    it(`${path}: any text or JSON of the wrong shape gets a 4xx, never a 500, and writes nothing`, async () => {
      const before = await rows();
      await fc.assert(
        fc.asyncProperty(anyBody, async (text) => {
          const response = await api.request(path, { body: text });
          if (response.status < 400 || response.status >= 500)
            throw new Error(`answered ${response.status} to ${text.slice(0, 300)}`);
          expect(response.body.code).toEqual(expect.any(String));
        }),
        { numRuns: 150, seed: 7 },
      );
      expect(await rows()).toEqual(before);
    });
  }
});
