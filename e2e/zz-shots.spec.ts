import { randomUUID } from 'node:crypto';
import { alertInstances } from '../packages/engine/src/db/schema';
import { saveStepOwner } from '../packages/engine/src/core';
import { expect, test } from './support/fixtures';

test('screenshots', async ({ page, database, recordAttempts }) => {
  test.setTimeout(240_000);
  const agent = 'shots-agent';
  const long = `Upstream refused: ${'x'.repeat(9_980)}`;
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
  const taskId = `shots-${randomUUID().slice(0, 6)}`;
  await recordAttempts([
    {
      taskId,
      agent,
      step: 'draft',
      attemptNumber: 1,
      outcome: 'failed',
      errorClass: 'timeout',
      errorText: long,
      costMicros: 3000,
      startedAt: minutesAgo(30),
      finishedAt: minutesAgo(29),
    },
    {
      taskId,
      agent,
      step: 'draft',
      attemptNumber: 2,
      outcome: 'succeeded',
      costMicros: 5000,
      startedAt: minutesAgo(12),
      finishedAt: minutesAgo(11),
    },
  ]);
  const admin = { type: 'person' as const, id: 'ada@holdfast.demo', role: 'admin' as const, teams: ['platform'] };
  await saveStepOwner({ db: database.db, actor: admin }, { agent, step: '*', owner: 'team:platform', reason: 'shots' });
  await database.db.insert(alertInstances).values({
    kind: 'retry_share_anomaly',
    identity: `step:${agent}/draft`,
    title: `Retry share anomaly on ${agent}/draft`,
    detail: long.slice(0, 900),
    link: `/steps/${agent}/draft`,
    team: 'platform',
    firedAt: minutesAgo(5),
  });
  const pages = [
    ['alerts', '/alerts'],
    ['overview', '/?window=1h'],
    ['steps', `/steps?window=24h`],
    [
      'steps-agent',
      `/steps?window=24h&agent=${agent}&window=custom&from=${encodeURIComponent(minutesAgo(120).toISOString().slice(0, 16))}&to=${encodeURIComponent(new Date().toISOString().slice(0, 16))}`,
    ],
    ['step', `/steps/${agent}/draft?window=1h`],
    ['agent', `/agents/${agent}`],
    ['task', `/tasks/${taskId}`],
    ['locks', '/locks'],
  ] as const;
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const [name, path] of pages) {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `/tmp/shots/${name}-${width}.png`, fullPage: true });
    }
  }
  expect(true).toBe(true);
});
