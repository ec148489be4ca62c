import { endpoints } from '@holdfast/protocol/api/endpoints';
import {
  AttemptConflictError,
  ForbiddenError,
  InvalidInputError,
  recordAttempt,
  readTaskAgents,
  recordAttemptInput,
  TaskAgentMismatchError,
  type FieldErrors,
  type RecordAttemptInput,
} from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

/**
 * Up to 1,000 attempts, all or nothing: every item is validated first (the
 * errors of all bad items, named `attempts.<index>.<field>`), then all are
 * recorded in one transaction; a conflict on any item rolls back the lot.
 */
export const POST = agentEndpoint(endpoints.recordAttempts, async (ctx, { attempts }) => {
  const fieldErrors: FieldErrors = {};
  const reports: RecordAttemptInput[] = [];
  attempts.forEach((item, index) => {
    const parsed = recordAttemptInput.safeParse(item);
    if (parsed.success) reports.push(item as RecordAttemptInput);
    else
      for (const issue of parsed.error.issues)
        (fieldErrors[['attempts', index, ...issue.path].join('.')] ??= []).push(issue.message);
  });
  const invalid = Object.keys(fieldErrors);
  if (invalid.length > 0)
    throw new InvalidInputError(
      `Invalid input: ${invalid.length} problem(s) in the batch, nothing recorded`,
      fieldErrors,
    );

  const outcome = await ctx.db.transaction(async (tx) => {
    let duplicates = 0;
    // Every item is judged against its task's stored agent; the tasks are read once for the batch.
    const storedTasks = await readTaskAgents(
      tx,
      reports.map((report) => report.taskId.trim()),
    );
    for (const [index, report] of reports.entries()) {
      try {
        if ((await recordAttempt({ db: tx, actor: ctx.actor }, report, storedTasks)).duplicate) duplicates += 1;
      } catch (error) {
        if (error instanceof AttemptConflictError)
          throw new AttemptConflictError(`attempts.${index}: ${error.message}; nothing in the batch was recorded`);
        // Refusals the library makes after parsing (a start outside the retention, a token's limits) name the item too.
        if (error instanceof InvalidInputError) {
          const named = Object.fromEntries(
            Object.entries(error.fieldErrors).map(([field, messages]) => [`attempts.${index}.${field}`, messages]),
          );
          throw new InvalidInputError(`attempts.${index}: ${error.message}; nothing in the batch was recorded`, named);
        }
        if (error instanceof ForbiddenError)
          throw new ForbiddenError(`attempts.${index}: ${error.message}; nothing in the batch was recorded`);
        if (error instanceof TaskAgentMismatchError)
          throw new TaskAgentMismatchError(`attempts.${index}: ${error.message}; nothing in the batch was recorded`);
        throw error;
      }
    }
    return { recorded: reports.length - duplicates, duplicates };
  });
  return { status: 200, body: outcome };
});
