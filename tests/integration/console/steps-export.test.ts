import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordAttempt } from '../../../packages/engine/src/core';
import { anAttempt } from '../../support/attempt-factory';
import { useTestDatabase } from '../../support/test-database';
import { closeAppDatabase } from '../../support/app-database';

/** The Steps page's CSV export: every matching step of the view, in its sort, its figures as the page reads them. */
const viewer = { type: 'person', id: 'viewer@example.com', role: 'viewer', teams: [] } as const;
const session = vi.hoisted(() => ({ current: async (): Promise<unknown> => undefined }));
vi.mock('../../../lib/server/session', () => ({ getCurrentPerson: () => session.current() }));

const database = useTestDatabase();
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

beforeAll(async () => {
  process.env.DATABASE_URL = database.url;
  // export_a/send: 2 attempts (a timeout after a long generation, costing 2 dollars, then a retry costing 2 dollars:
  // 4 spent, 2 of them beyond one try, the failed spend); export_b/plan: 1 success costing 1 dollar.
  const record = (attempt: Parameters<typeof anAttempt>[0], minutes: number) =>
    recordAttempt(
      { db: database.db },
      anAttempt({ ...attempt, startedAt: minutesAgo(minutes), finishedAt: minutesAgo(minutes - 1) }),
    );
  const timeout = { outcome: 'failed', errorClass: 'timeout', errorText: '504 from the mail API' } as const;
  await record({ ...timeout, taskId: 'csv-1', agent: 'export_a', step: 'send', costMicros: 2_000_000 }, 30);
  await record({ taskId: 'csv-1', agent: 'export_a', step: 'send', attemptNumber: 2, costMicros: 2_000_000 }, 20);
  await record({ taskId: 'csv-2', agent: 'export_b', step: 'plan', costMicros: 1_000_000 }, 10);
});
afterAll(closeAppDatabase);

const exportSteps = async (query: string) => {
  const { GET } = await import('../../../app/api/console/steps.csv/route');
  return GET(new NextRequest(`http://holdfast.test/api/console/steps.csv?${query}`));
};

describe('GET /api/console/steps.csv', () => {
  it('exports every matching step of the view, in its sort, with a header line', async () => {
    session.current = async () => viewer;
    const response = await exportSteps('window=24h&sort=retrySpendMicros&dir=desc');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="holdfast-steps-24h-/);
    const lines = (await response.text()).split('\r\n');
    expect(lines[0]).toBe(
      'agent,step,attempts,retries,retry_rate,first_try_success,spend_usd,retry_spend_usd,retry_share_of_spend,failures,failures_by_class,latency_p50_ms,latency_p95_ms,' +
        'failed_spend_usd,retry_spend_by_cause_usd,retry_spend_change_usd,previous_attempts,previous_retries,previous_retry_rate,' +
        'previous_first_try_success,previous_spend_usd,previous_retry_spend_usd,previous_retry_share_of_spend,previous_failures,' +
        'previous_failed_spend_usd,owner,owner_source,cost_sources',
    );
    // Nothing in the previous 24 hours: its figures are zeros (previous_attempts 0 is the page's "new"); no rollup
    // pass has run, so no retry spend by cause is known yet.
    expect(lines[1]).toMatch(
      /^export_a,send,2,1,0\.5,0,4,2,0\.5,1,timeout 1,\d+(\.\d+)?,\d+(\.\d+)?,2,,2,0,0,0,,0,0,0,0,0,,,$/,
    );
    expect(lines[2]).toMatch(/^export_b,plan,1,0,0,1,1,0,0,0,,\d+(\.\d+)?,\d+(\.\d+)?,0,,0,0,0,0,,0,0,0,0,0,,,$/);
    expect(lines).toHaveLength(4); // and the final line break

    // The agent filter keeps one.
    const one = (await (await exportSteps('window=24h&agent=export_b')).text()).split('\r\n');
    expect(one.slice(1, -1).map((line) => line.split(',')[0])).toEqual(['export_b']);
  });

  it('names a bad parameter instead of exporting another view, and needs a signed-in person', async () => {
    session.current = async () => viewer;
    const bad = await exportSteps('window=2h&sort=cost');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { window: expect.any(Array) } });
    session.current = async () => undefined;
    expect((await exportSteps('window=24h')).status).toBe(401);
  });
});
