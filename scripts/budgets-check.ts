/**
 * `npm run budgets:check -- FILE`: checks a spend budgets file (HOLDFAST_SPEND_BUDGETS_FILE) as a start would,
 * without a database: prints each budget it holds, or every mistake with its place, and exits 1 on a mistake. For
 * the repository that keeps the file, before it reaches a server.
 */
import { periodWords } from '@holdfast/protocol/inputs/spend-budget-input';
import { readBudgetsFile } from './lib/spend-budgets-file';

async function main(): Promise<number> {
  const file = process.argv[2];
  if (!file) {
    console.error('Usage: npm run budgets:check -- FILE');
    return 2;
  }
  try {
    const budgets = await readBudgetsFile(file);
    console.log(`${file}: ${budgets.length} budget(s), no mistakes`);
    for (const { name, next } of budgets) {
      const scope = next.scope === 'fleet' ? 'the whole fleet' : `${next.scope} ${next.scopeValue}`;
      console.log(
        `  ${name}: $${next.limitMicros / 1_000_000} ${periodWords(next)} for ${scope}, ${next.onExhausted}s when spent`,
      );
    }
    return 0;
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }
}

main().then((code) => process.exit(code));
