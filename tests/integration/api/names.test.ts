import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useApi } from '../../support/api-harness';
import { aDeadLetterInput } from '../../support/dead-letter-input';
import { anAttemptBody } from '../../support/attempt-factory';

const api = useApi();

/**
 * Every agent endpoint that takes an agent, step or queue name, with a body
 * that is valid but for the name under test. Names become metric labels, key
 * parts and console text, so each is held to the one name rule (packages/protocol/src/names.ts).
 */
const attempt = () => anAttemptBody({ taskId: `names-${randomUUID()}`, costMicros: 10 });

const endpoints: { path: string; body: () => Record<string, unknown>; fields: string[] }[] = [
  {
    path: '/api/v1/steps/begin',
    body: () => ({
      taskId: `names-${randomUUID()}`,
      agent: 'research',
      queue: 'research',
      owner: 'team:platform',
      step: 'plan',
      content: { q: 1 },
    }),
    fields: ['agent', 'step', 'queue'],
  },
  { path: '/api/v1/attempts', body: attempt, fields: ['agent', 'step'] },
  {
    path: '/api/v1/attempts/batch',
    body: () => ({ attempts: [attempt()] }),
    fields: ['attempts.0.agent', 'attempts.0.step'],
  },
  {
    path: '/api/v1/dead-letters',
    body: () =>
      aDeadLetterInput({
        taskId: `names-${randomUUID()}`,
        step: 'charge_card',
        payload: { amount: 1 },
        lastError: '400 card declined',
        owner: 'team:platform',
      }),
    fields: ['agent', 'step', 'queue'],
  },
  {
    path: '/api/v1/runs/start',
    body: () => ({ runKey: `run-${randomUUID()}`, taskId: `names-${randomUUID()}`, agent: 'publishing' }),
    fields: ['agent'],
  },
  {
    path: '/api/v1/keys/claim',
    body: () => ({ key: `raw-${randomUUID()}`, requestHash: 'h1', taskId: `names-${randomUUID()}`, step: 'publish' }),
    fields: ['step'],
  },
  { path: '/api/v1/redrives/claim', body: () => ({ queues: ['payments'] }), fields: ['queues.0'] },
];

/** Characters that make a name lie on a page, break a label or a line: newline, quote, right-to-left override. */
const badNames = [
  ['a newline', 'draft\nemail'],
  ['a double quote', 'draft"email'],
  ['a right-to-left override (U+202E)', 'draft\u202Eemail'],
] as const;

/** Sets `value` at a dotted path (`attempts.0.agent`, `queues.0`) of a fresh body. */
function withField(body: Record<string, unknown>, path: string, value: string): Record<string, unknown> {
  const parts = path.split('.');
  let target: Record<string, unknown> = body;
  for (const part of parts.slice(0, -1)) target = target[part] as Record<string, unknown>;
  target[parts.at(-1)!] = value;
  return body;
}

const cases = endpoints.flatMap(({ path, body, fields }) =>
  fields.flatMap((field) => badNames.map(([what, name]) => ({ path, body, field, what, name }))),
);

describe('one name rule on every endpoint that takes names', () => {
  it.each(cases)(
    '$path refuses a $field with $what: 400 naming the field alone',
    async ({ path, body, field, name }) => {
      const answer = await api.request(path, { body: withField(body(), field, name) });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'INVALID_INPUT' });
      expect(Object.keys(answer.body.fieldErrors as object)).toEqual([field]);
      expect((answer.body.fieldErrors as Record<string, string[]>)[field]).toEqual([
        'may contain only letters, digits and _ . : -',
      ]);
    },
  );

  it('the valid bodies of the table are accepted as they are (the refusals above are the names alone)', async () => {
    const begun = await api.request('/api/v1/steps/begin', { body: endpoints[0]!.body() });
    expect(begun).toMatchObject({ status: 200, body: { decision: 'run' } });
    expect((await api.request('/api/v1/attempts', { body: attempt() })).status).toBe(201);
    expect((await api.request('/api/v1/runs/start', { body: endpoints[4]!.body() })).status).toBe(200);
    expect((await api.request('/api/v1/redrives/claim', { body: { queues: ['payments'] } })).status).toBe(200);
  });
});
