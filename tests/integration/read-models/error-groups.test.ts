import { beforeAll, describe, expect, it } from 'vitest';
import { recordAttempt } from '../../../packages/engine/src/core';
import { deadLetters } from '../../../packages/engine/src/db/schema';
import { getErrorGroups } from '../../../lib/queries/error-groups';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { aFailedAttempt, anAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';
import { aDeadLetterInput } from '../../support/dead-letter-input';

const database = useTestDatabase();
const now = new Date('2026-11-20T12:30:00.000Z');
const DAY_MS = 86_400_000;
const at = (iso: string) => new Date(`2026-11-20T${iso}:00.000Z`);

async function fail(time: string, overrides: Parameters<typeof aFailedAttempt>[0], taskId?: string) {
  const startedAt = at(time);
  await recordAttempt(
    { db: database.db, clock: () => now },
    aFailedAttempt({
      startedAt,
      finishedAt: new Date(startedAt.getTime() + 500),
      ...(taskId ? { taskId } : {}),
      ...overrides,
    }),
  );
}

const mailbox = (n: number) => ({
  agent: 'mailer',
  step: 'send',
  errorClass: 'permanent' as const,
  errorText: `400 Bad Request: no mailbox for user${n}@example.com (request ${1000 + n})`,
});
const timeout = (n: number) => ({
  agent: 'mailer',
  step: 'send',
  errorClass: 'transient' as const,
  errorText: `503: upstream timed out after ${n * 100} ms`,
});
const notJson = {
  agent: 'summarizer',
  step: 'summarize',
  errorClass: 'invalid_output' as const,
  errorText: 'the summary was not JSON',
};

beforeAll(async () => {
  // The mailbox group: 5 failures at 10:xx over 4 tasks, 3 in the open hour (12:xx).
  for (const [index, time] of ['10:05', '10:10', '10:20', '10:40', '10:50'].entries())
    await fail(time, { ...mailbox(index), attemptNumber: index < 4 ? 1 : 2 }, `mail-${index % 4}`);
  for (const [index, time] of ['12:01', '12:10', '12:20'].entries()) await fail(time, mailbox(10 + index));
  // The timeout group: 4 at 11:xx; the summarizer's: 2 at 09:xx. Successes count nowhere.
  for (const [index, time] of ['11:05', '11:15', '11:25', '11:35'].entries()) await fail(time, timeout(index + 1));
  for (const time of ['09:10', '09:20']) await fail(time, notJson);
  // Two days earlier, the same group: within the week, read from the pass's day rows once rolled.
  for (const startedAt of [new Date('2026-11-18T08:10:00.000Z'), new Date('2026-11-18T08:40:00.000Z')])
    await recordAttempt(
      { db: database.db, clock: () => now },
      aFailedAttempt({ ...notJson, startedAt, finishedAt: new Date(startedAt.getTime() + 500) }),
    );
  for (const time of ['10:00', '11:00', '12:05'])
    await recordAttempt(
      { db: database.db, clock: () => now },
      anAttempt({ agent: 'mailer', step: 'send', startedAt: at(time), finishedAt: new Date(at(time).getTime() + 900) }),
    );
  // A pending dead letter of the mailbox group (another address and request, the same pattern).
  await database.db.insert(deadLetters).values(
    aDeadLetterInput({
      taskId: 'mail-dead',
      agent: 'mailer',
      step: 'send',
      queue: 'mail',
      lastError: '400 Bad Request: no mailbox for zed@example.org (request 77)',
    }),
  );
});

describe('getErrorGroups', () => {
  it('groups failures that differ only in ids and numbers, counts them, and links their pending dead letters', async () => {
    const view = await getErrorGroups(database.db, { window: '24h', now });
    expect(view.matched).toBe(3);
    expect(
      view.groups.map((group) => [
        group.agent,
        group.step,
        group.errorClass,
        group.pattern,
        group.failures,
        group.pendingDeadLetters,
      ]),
    ).toEqual([
      ['mailer', 'send', 'permanent', '<n> Bad Request: no mailbox for <email> (request <n>)', 8, 1],
      ['mailer', 'send', 'transient', '<n>: upstream timed out after <n> ms', 4, 0],
      ['summarizer', 'summarize', 'invalid_output', 'the summary was not JSON', 2, 0],
    ]);
    const mailboxGroup = view.groups[0]!;
    expect(mailboxGroup.firstSeenAt).toEqual(new Date(at('10:05').getTime() + 500));
    expect(mailboxGroup.lastSeenAt).toEqual(new Date(at('12:20').getTime() + 500));
    expect(mailboxGroup.sampleError).toMatch(/^400 Bad Request: no mailbox for user\d+@example\.com/);
    // Four tasks at 10:xx, three of their own at 12:xx.
    expect(mailboxGroup.taskHours).toBe(7);
  });

  it('gives the same groups from the rollup pass as from the raw log', async () => {
    const before = await getErrorGroups(database.db, { window: '24h', now });
    const beforeHour = await getErrorGroups(database.db, { window: '1h', now });
    const beforeWeek = await getErrorGroups(database.db, { window: '7d', now });
    await rollUpAttempts(database.db, { now, retentionFloor: new Date(now.getTime() - 30 * DAY_MS) });
    const [rows] = await database.sql<{ hours: number; days: number }[]>`
      select (select count(*)::int from error_group_hours) as hours, (select count(*)::int from error_group_days) as days`;
    // Hours: the summarizer's at 08 on the 18th and 09 today, mailbox at 10, timeout at 11 (the open hour 12 is not
    // rolled). Days: the 18th; today is summed once all its hours are rolled, and read from its hours until then.
    expect(rows).toEqual({ hours: 4, days: 1 });
    // The same, but where the catalogue knows more: before its first pass a group's first sighting is the first in
    // the range read; the pass has met the summarizer's group on the 18th.
    const afterDay = await getErrorGroups(database.db, { window: '24h', now });
    const summarizer = (view: typeof before) => view.groups.find((group) => group.agent === 'summarizer')!;
    expect(summarizer(before).firstSeenAt).toEqual(new Date('2026-11-20T09:10:00.500Z'));
    expect(summarizer(afterDay).firstSeenAt).toEqual(new Date('2026-11-18T08:10:00.500Z'));
    summarizer(afterDay).firstSeenAt = summarizer(before).firstSeenAt;
    expect(afterDay).toEqual(before);
    expect(await getErrorGroups(database.db, { window: '1h', now })).toEqual(beforeHour);
    expect(await getErrorGroups(database.db, { window: '7d', now })).toEqual(beforeWeek);
    // The week counts whole days: the summarizer's four failures, two of them from the 18th's day row.
    expect(beforeWeek.from).toEqual(new Date('2026-11-13T00:00:00.000Z'));
    expect(beforeWeek.groups.find((group) => group.agent === 'summarizer')?.failures).toBe(4);
  });

  it('compares a window with as many whole hours before it', async () => {
    // 1 h at 12:30 reads from 11:00 (two hours, the last partial); before it, 09:00 to 11:00.
    const view = await getErrorGroups(database.db, { window: '1h', now });
    expect(view.from).toEqual(at('11:00'));
    expect(view.windowHours).toBe(2);
    expect(view.groups.map((group) => [group.errorClass, group.failures, group.previousFailures])).toEqual([
      ['transient', 4, 0],
      ['permanent', 3, 5],
    ]);
  });

  it('narrows by agent, step and words in the pattern or the sample', async () => {
    const bySearch = await getErrorGroups(database.db, { window: '24h', now, filter: { search: 'MAILBOX' } });
    expect(bySearch.groups.map((group) => group.errorClass)).toEqual(['permanent']);
    const bySample = await getErrorGroups(database.db, { window: '24h', now, filter: { search: 'example.com' } });
    expect(bySample.matched).toBe(1);
    const byStep = await getErrorGroups(database.db, {
      window: '24h',
      now,
      filter: { agent: 'summarizer', step: 'summarize' },
    });
    expect(byStep.groups.map((group) => group.pattern)).toEqual(['the summary was not JSON']);
    const literal = await getErrorGroups(database.db, { window: '24h', now, filter: { search: '100%' } });
    expect(literal.groups).toEqual([]);
  });
});
