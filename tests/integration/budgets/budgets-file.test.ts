import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  applyBudgetsFile,
  deleteSpendBudget,
  parseBudgetsFile,
  readSpendBudgets,
  saveSpendBudget,
} from '../../../packages/engine/src/core';
import { InvalidInputError } from '../../../packages/protocol/src/errors';
import { applySpendBudgetsFile } from '../../../scripts/lib/spend-budgets-file';
import { admin } from '../../support/actors';
import { useTestDatabase } from '../../support/test-database';

/**
 * Spend budgets kept in a file under version control (HOLDFAST_SPEND_BUDGETS_FILE): applied at start in one
 * transaction, each change audited as the file; the file's budgets read only in the console; a file with a mistake
 * names every one and applies nothing. Each test names budgets of its own: they share one database.
 */
const database = useTestDatabase();
const asAdmin = () => ({ db: database.db, actor: admin });

const fileOf = (budgets: object[]) => JSON.stringify({ budgets });
const agentBudget = (name: string, limitUsd: number, extra: object = {}) => ({
  name,
  scope: 'agent',
  scopeValue: 'filed',
  period: 'day',
  limitUsd,
  ...extra,
});

async function auditOf(name: string) {
  return database.sql<{ action: string; actor_type: string; actor_id: string; reason: string }[]>`
    select action, actor_type, actor_id, reason from audit_log
    where target_type = 'spend_budget' and target_id = ${name} order by id`;
}

async function storedNamed(prefix: string) {
  return (await readSpendBudgets(database.db))
    .filter((budget) => budget.name.startsWith(prefix))
    .map((budget) => ({ name: budget.name, limitMicros: budget.limitMicros, keptIn: budget.keptIn }));
}

describe('spend budgets from a file', () => {
  it('creates, changes and deletes what the file says, audited as the file, and writes nothing when applied again', async () => {
    const first = parseBudgetsFile(fileOf([agentBudget('a-daily', 5), agentBudget('a-hourly', 1, { period: 'hour' })]));
    expect(await applyBudgetsFile(database.db, 'budgets.json', first)).toEqual({
      created: 2,
      changed: 0,
      deleted: 0,
      unchanged: 0,
    });
    expect(await storedNamed('a-')).toEqual([
      { name: 'a-daily', limitMicros: 5_000_000, keptIn: 'budgets.json' },
      { name: 'a-hourly', limitMicros: 1_000_000, keptIn: 'budgets.json' },
    ]);
    expect(await auditOf('a-daily')).toEqual([
      {
        action: 'spend_budget.save',
        actor_type: 'system',
        actor_id: 'budgets-file',
        reason: 'from the budgets file budgets.json',
      },
    ]);
    // A restart with the same file: nothing written, nothing audited.
    expect(await applyBudgetsFile(database.db, 'budgets.json', first)).toMatchObject({ unchanged: 2, created: 0 });
    expect(await auditOf('a-daily')).toHaveLength(1);

    // The next version of the file: one limit raised, one budget gone.
    const next = parseBudgetsFile(fileOf([agentBudget('a-daily', 8)]));
    expect(await applyBudgetsFile(database.db, 'budgets.json', next)).toMatchObject({ changed: 1, deleted: 1 });
    expect(await storedNamed('a-')).toEqual([{ name: 'a-daily', limitMicros: 8_000_000, keptIn: 'budgets.json' }]);
    expect((await auditOf('a-hourly')).map((row) => row.action)).toEqual(['spend_budget.save', 'spend_budget.delete']);
  });

  it("keeps a file's budget read only in the console, and takes over a console budget of the same name", async () => {
    await saveSpendBudget(asAdmin(), { ...agentBudget('b-console', 2), scope: 'agent', period: 'day', reason: 'set' });
    await applyBudgetsFile(database.db, 'budgets.json', parseBudgetsFile(fileOf([agentBudget('b-console', 3)])));
    expect(await storedNamed('b-')).toEqual([{ name: 'b-console', limitMicros: 3_000_000, keptIn: 'budgets.json' }]);

    const change = saveSpendBudget(asAdmin(), {
      ...agentBudget('b-console', 30),
      scope: 'agent',
      period: 'day',
      reason: 'raise it',
    });
    await expect(change).rejects.toBeInstanceOf(InvalidInputError);
    await expect(change).rejects.toMatchObject({
      fieldErrors: { name: ['kept in budgets.json: change it there, and the next start applies it'] },
    });
    await expect(deleteSpendBudget(asAdmin(), { name: 'b-console', reason: 'gone' })).rejects.toThrow(
      /kept in budgets\.json/,
    );
    expect(await storedNamed('b-')).toEqual([{ name: 'b-console', limitMicros: 3_000_000, keptIn: 'budgets.json' }]);
  });

  it('names every mistake of a file with its place and applies nothing from it', async () => {
    const file = JSON.stringify({
      budgets: [
        agentBudget('c-fine', 1),
        agentBudget('c-negative', -1),
        { ...agentBudget('c-scope', 1), scope: 'team' },
        agentBudget('c-fine', 2),
      ],
      owner: 'someone',
    });
    let refusal: unknown;
    try {
      parseBudgetsFile(file);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(InvalidInputError);
    expect((refusal as InvalidInputError).fieldErrors).toEqual({
      '(file)': ['unknown field "owner"'],
      'budgets.1.limitUsd': ['must be more than 0'],
      'budgets.2.scope': ['must be one of fleet, agent, owner, queue, step, downstream, model'],
      'budgets.3.name': ['"c-fine" is budget 0 already'],
    });
    expect(() => parseBudgetsFile('{"budgets": [')).toThrow(/not JSON/);
    expect(() => parseBudgetsFile('[]')).toThrow(/no "budgets" list/);
    expect(await storedNamed('c-')).toEqual([]);
  });

  it('is applied at start from HOLDFAST_SPEND_BUDGETS_FILE, and checked without a database by budgets:check', async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-budgets-'));
    const good = path.join(folder, 'fleet-budgets.json');
    const bad = path.join(folder, 'broken.json');
    await fs.writeFile(good, fileOf([agentBudget('d-start', 4, { scope: 'fleet', scopeValue: '' })]));
    await fs.writeFile(bad, fileOf([agentBudget('d-bad', 0)]));

    // The file is the one keeper of file budgets: those another file (here budgets.json, renamed) kept go too.
    const keptBefore = (await readSpendBudgets(database.db)).filter((budget) => budget.keptIn !== null).length;
    const lines: string[] = [];
    await applySpendBudgetsFile(database.appUrl, good, (line) => lines.push(line));
    expect(lines).toEqual([
      `Spend budgets from ${good}: 1 in the file; 1 created, 0 changed, ${keptBefore} deleted, 0 as they were`,
    ]);
    expect((await readSpendBudgets(database.db)).filter((budget) => budget.keptIn !== null)).toHaveLength(1);
    expect(await storedNamed('d-')).toEqual([
      { name: 'd-start', limitMicros: 4_000_000, keptIn: 'fleet-budgets.json' },
    ]);
    await expect(applySpendBudgetsFile(database.appUrl, bad, () => {})).rejects.toThrow(
      `The spend budgets file ${bad} has 1 mistake(s): budgets.0.limitUsd: must be more than 0`,
    );

    const check = (file: string) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/budgets-check.ts', file]).then(
        (done) => ({ code: 0, out: done.stdout }),
        (failed: { code: number; stderr: string }) => ({ code: failed.code, out: failed.stderr }),
      );
    expect(await check(good)).toEqual({
      code: 0,
      out: `${good}: 1 budget(s), no mistakes\n  d-start: $4 a UTC day for the whole fleet, waits when spent\n`,
    });
    expect(await check(bad)).toMatchObject({ code: 1, out: expect.stringContaining('budgets.0.limitUsd') });
  });
});
