import fs from 'node:fs/promises';
import path from 'node:path';
import { applyBudgetsFile, parseBudgetsFile } from '@holdfast/engine/core';
import { connectDatabase } from '@holdfast/engine/db';
import { InvalidInputError } from '@holdfast/protocol/errors';

/** The budgets a budgets file holds; an unreadable or invalid file is an error naming the file and every mistake. */
export async function readBudgetsFile(file: string) {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`The spend budgets file ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  try {
    return parseBudgetsFile(text);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const mistakes = Object.entries(error.fieldErrors).map(([field, messages]) => `${field}: ${messages.join(', ')}`);
    throw new Error(`The spend budgets file ${file} has ${mistakes.length} mistake(s): ${mistakes.join('; ')}`);
  }
}

/** Applies HOLDFAST_SPEND_BUDGETS_FILE at start, before anything is served, and says what it changed. */
export async function applySpendBudgetsFile(databaseUrl: string, file: string, log: (line: string) => void) {
  const budgets = await readBudgetsFile(file);
  const connection = connectDatabase(databaseUrl, { maxConnections: 1 });
  try {
    const outcome = await applyBudgetsFile(connection.db, path.basename(file), budgets);
    log(
      `Spend budgets from ${file}: ${budgets.length} in the file; ${outcome.created} created, ${outcome.changed} changed, ${outcome.deleted} deleted, ${outcome.unchanged} as they were`,
    );
  } finally {
    await connection.close();
  }
}
