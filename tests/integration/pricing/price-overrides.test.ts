import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Actor, recordAttempt } from '../../../packages/engine/src/core';
import {
  deletePriceOverride,
  savePriceOverride,
  saveRefusedStatuses,
} from '../../../packages/engine/src/core/pricing/manage-pricing';
import { DEFAULT_ERROR_CLASS_RULES, readErrorClassRules } from '../../../packages/engine/src/traces/error-class-rules';
import { rulesFingerprint, saveErrorClassRules } from '../../../packages/engine/src/traces/manage-error-class-rules';
import { spanMappingRules } from '../../../packages/engine/src/traces/mapping-rules';
import { useTestDatabase } from '../../support/test-database';
import { admin } from '../../support/actors';

/**
 * Admins' pricing settings: overrides per provider and model, the failed-call rule's statuses and the
 * span error class rules. Each change is guarded, validated, audited in its own transaction, and takes
 * effect on this instance at once.
 */
const database = useTestDatabase();
const asAdmin = () => ({ db: database.db, actor: admin });
const ALL_DEFAULT_RULES = DEFAULT_ERROR_CLASS_RULES.map((rule) =>
  rule.errorTypeContains
    ? { when: 'words' as const, words: rule.errorTypeContains, errorClass: rule.errorClass }
    : { when: 'status' as const, from: rule.httpStatusFrom!, to: rule.httpStatusTo!, errorClass: rule.errorClass },
);

async function auditOf(action: string) {
  return database.sql<{ target_id: string; reason: string; before: unknown; after: unknown }[]>`
    select target_id, reason, before, after from audit_log where action = ${action} order by id`;
}

async function priceOf(model: string, usage: Record<string, number>, failure?: { httpStatus: number }) {
  const taskId = `price-${randomUUID()}`;
  const started = new Date(Date.now() - 2_000);
  const { attempt } = await recordAttempt(
    { db: database.db },
    {
      taskId,
      agent: 'research',
      step: 'summarize',
      attemptNumber: 1,
      startedAt: started,
      finishedAt: new Date(started.getTime() + 500),
      model,
      provider: 'openai',
      usage,
      ...(failure
        ? { outcome: 'failed', errorClass: 'permanent', errorText: 'refused', httpStatus: failure.httpStatus }
        : { outcome: 'succeeded' }),
    },
  );
  return { costMicros: attempt.costMicros, costSource: attempt.costSource };
}

beforeEach(async () => {
  await database.sql`delete from price_overrides`;
});

describe('price overrides', () => {
  it('an override prices the next attempt at once; saving it again changes nothing; deleting restores the table', async () => {
    const tablePrice = await priceOf('gpt-4o-mini', { inputTokens: 1_000_000 });
    expect(tablePrice.costSource).toBe('priced');

    const saved = await savePriceOverride(asAdmin(), {
      provider: 'OpenAI',
      model: 'gpt-4o-mini',
      inputPerMillion: 0.05,
      outputPerMillion: 0.2,
      reason: 'negotiated rate, contract 2026-11',
    });
    expect(saved).toEqual({ changed: true, created: true });
    expect(await priceOf('gpt-4o-mini', { inputTokens: 1_000_000 })).toEqual({
      costMicros: 50_000,
      costSource: 'priced',
    });

    expect(
      await savePriceOverride(asAdmin(), {
        provider: 'openai',
        model: 'gpt-4o-mini',
        inputPerMillion: 0.05,
        outputPerMillion: 0.2,
        reason: 'again',
      }),
    ).toEqual({ changed: false, created: false });

    expect(await deletePriceOverride(asAdmin(), { provider: 'openai', model: 'gpt-4o-mini', reason: 'ended' })).toEqual(
      { changed: true },
    );
    expect(await deletePriceOverride(asAdmin(), { provider: 'openai', model: 'gpt-4o-mini', reason: 'ended' })).toEqual(
      { changed: false },
    );
    expect(await priceOf('gpt-4o-mini', { inputTokens: 1_000_000 })).toEqual(tablePrice);

    const audit = await auditOf('price_override.save');
    expect(audit.filter((row) => row.target_id === 'openai/gpt-4o-mini')).toEqual([
      {
        target_id: 'openai/gpt-4o-mini',
        reason: 'negotiated rate, contract 2026-11',
        before: null,
        after: { inputPerMillion: 0.05, outputPerMillion: 0.2, cacheReadPerMillion: null, cacheWritePerMillion: null },
      },
    ]);
    expect((await auditOf('price_override.delete')).map((row) => row.target_id)).toContain('openai/gpt-4o-mini');
  });

  it('bad prices are refused by field and nothing is written', async () => {
    const refused = savePriceOverride(asAdmin(), {
      model: ' ',
      inputPerMillion: -1,
      outputPerMillion: Number.NaN,
      reason: '',
    });
    await expect(refused).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { model: [expect.any(String)], inputPerMillion: [expect.any(String)], reason: [expect.any(String)] },
    });
    const [count] = await database.sql<{ n: number }[]>`select count(*)::int as n from price_overrides`;
    expect(count!.n).toBe(0);
  });

  it('a responder may not set prices', async () => {
    const responder: Actor = { type: 'person', id: 'rae@example.com', role: 'responder', teams: [] };
    await expect(
      savePriceOverride(
        { db: database.db, actor: responder },
        { model: 'gpt-4o', inputPerMillion: 0, outputPerMillion: 0, reason: 'free!' },
      ),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe("the failed-call rule's statuses", () => {
  it('a status taken off the list is charged for its tokens; put back, it costs 0 again', async () => {
    expect(await priceOf('gpt-4o', { inputTokens: 1_000 }, { httpStatus: 400 })).toEqual({
      costMicros: 0,
      costSource: 'rule',
    });
    await saveRefusedStatuses(asAdmin(), { statuses: [429, 401, 401], reason: 'our gateway bills 400s' });
    const charged = await priceOf('gpt-4o', { inputTokens: 1_000 }, { httpStatus: 400 });
    expect(charged.costSource).toBe('priced');
    expect(charged.costMicros).toBeGreaterThan(0);
    const [audit] = (await auditOf('refused_call_statuses.save')).slice(-1);
    expect(audit).toMatchObject({ before: [400, 401, 403, 404, 413, 422, 429], after: [401, 429] });

    await saveRefusedStatuses(asAdmin(), { statuses: [400, 401, 403, 404, 413, 422, 429], reason: 'back' });
    expect((await priceOf('gpt-4o', { inputTokens: 1_000 }, { httpStatus: 400 })).costSource).toBe('rule');
  });

  it('statuses outside 400-599 are refused', async () => {
    await expect(saveRefusedStatuses(asAdmin(), { statuses: [200], reason: 'x' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

describe('the error class rules', () => {
  it('a saved table classes spans from then on; the same table writes nothing; a reset restores the defaults', async () => {
    const stored = await readErrorClassRules(database.db);
    expect(stored.map(({ position: _, ...rule }) => rule)).toEqual(
      DEFAULT_ERROR_CLASS_RULES.map(({ position: _, ...rule }) => rule),
    );
    const conflictFirst = [{ when: 'status' as const, from: 409, to: 409, errorClass: 'transient' as const }];
    const saved = await saveErrorClassRules(asAdmin(), {
      rules: [...conflictFirst, ...ALL_DEFAULT_RULES],
      basedOn: rulesFingerprint(stored),
      reason: 'our provider answers 409 while a model loads',
    });
    expect(saved.changed).toBe(true);
    const inForce = await spanMappingRules(database.db, new Set(['chat']));
    expect(inForce.errorClassRules[0]).toMatchObject({ httpStatusFrom: 409, errorClass: 'transient' });

    expect(
      (
        await saveErrorClassRules(asAdmin(), {
          rules: [...conflictFirst, ...ALL_DEFAULT_RULES],
          reason: 'again',
        })
      ).changed,
    ).toBe(false);

    await saveErrorClassRules(asAdmin(), { rules: ALL_DEFAULT_RULES, reason: 'reset to the defaults' });
    const [audit] = (await auditOf('error_class_rules.save')).slice(-1);
    expect(audit!.reason).toBe('reset to the defaults');
    expect((audit!.before as unknown[]).length).toBe(DEFAULT_ERROR_CLASS_RULES.length + 1);
  });

  it('of ten admins saving from the same table at once, exactly one wins; the others are told to reload', async () => {
    const basedOn = rulesFingerprint(await readErrorClassRules(database.db));
    const auditBefore = (await auditOf('error_class_rules.save')).length;
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        saveErrorClassRules(asAdmin(), {
          rules: [
            { when: 'status', from: 410 + index, to: 410 + index, errorClass: 'permanent' },
            ...ALL_DEFAULT_RULES,
          ],
          basedOn,
          reason: `editor ${index}`,
        }),
      ),
    );
    const won = results.filter((result) => result.status === 'fulfilled');
    const conflicts = results.filter(
      (result) => result.status === 'rejected' && (result.reason as { code?: string }).code === 'STATE_CONFLICT',
    );
    expect(won).toHaveLength(1);
    expect(conflicts).toHaveLength(9);
    expect((await auditOf('error_class_rules.save')).length).toBe(auditBefore + 1);
    const stored = await readErrorClassRules(database.db);
    expect(stored).toHaveLength(DEFAULT_ERROR_CLASS_RULES.length + 1);
    await saveErrorClassRules(asAdmin(), { rules: ALL_DEFAULT_RULES, reason: 'reset' });
  });

  it('a rule with no condition, a backwards range or too many words is refused by field', async () => {
    await expect(
      saveErrorClassRules(asAdmin(), {
        rules: [
          { when: 'status', from: 500, to: 400, errorClass: 'transient' },
          { when: 'words', words: [], errorClass: 'transient' },
        ],
        reason: 'x',
      }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await readErrorClassRules(database.db)).toHaveLength(DEFAULT_ERROR_CLASS_RULES.length);
  });
});
