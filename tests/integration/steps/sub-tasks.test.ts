import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { beginStep, type CoreContext } from '../../../packages/engine/src/core';
import { taskBudgets } from '../../../packages/engine/src/db/schema';
import { getTaskTimeline, SUB_TASKS_SHOWN } from '../../../lib/queries/task-timeline';
import { useTestDatabase } from '../../support/test-database';

const database = useTestDatabase();
const ctx = (): CoreContext => ({ db: database.db });
const begin = (taskId: string, parentTaskId?: string) =>
  beginStep(ctx(), {
    taskId,
    agent: 'research',
    owner: 'team:platform',
    step: 'summarize',
    content: { taskId },
    ...(parentTaskId === undefined ? {} : { parentTaskId }),
  });
const parentOf = async (taskId: string) =>
  (await database.db.select().from(taskBudgets).where(eq(taskBudgets.taskId, taskId)))[0]?.parentTaskId;

describe('sub-tasks', () => {
  it('a new task names its parent once; both pages list each other', async () => {
    const parent = `brief-${randomUUID()}`;
    await begin(parent);
    await begin(`${parent}.part-1`, parent);
    await begin(`${parent}.part-2`, parent);
    // A later begin naming another parent changes nothing: the first begin's stands, as for the allowance.
    const elsewhere = `brief-${randomUUID()}`;
    await begin(elsewhere);
    await begin(`${parent}.part-1`, elsewhere);
    expect(await parentOf(`${parent}.part-1`)).toBe(parent);

    const timeline = await getTaskTimeline(database.db, parent);
    expect(timeline?.subTasks.map((sub) => sub.taskId)).toEqual([`${parent}.part-1`, `${parent}.part-2`]);
    expect(timeline?.moreSubTasks).toBe(false);
    expect((await getTaskTimeline(database.db, `${parent}.part-2`))?.budget?.parentTaskId).toBe(parent);
  });

  it('lists the first sub-tasks of a task that started many, and says there are more', async () => {
    const parent = `fan-${randomUUID()}`;
    await begin(parent);
    for (let part = 0; part <= SUB_TASKS_SHOWN; part += 1) await begin(`${parent}.part-${part}`, parent);
    const timeline = await getTaskTimeline(database.db, parent);
    expect(timeline?.subTasks).toHaveLength(SUB_TASKS_SHOWN);
    expect(timeline?.moreSubTasks).toBe(true);
  });

  it('refuses a parent Holdfast has not seen, or the task itself, and writes nothing', async () => {
    const taskId = `orphan-${randomUUID()}`;
    await expect(begin(taskId, `nobody-${randomUUID()}`)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { parentTaskId: ['must be a task that has begun a step'] },
    });
    await expect(begin(taskId, taskId)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      fieldErrors: { parentTaskId: ['must be another task'] },
    });
    expect(await parentOf(taskId)).toBeUndefined();
    await expect(begin(taskId, ' '.repeat(3))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
