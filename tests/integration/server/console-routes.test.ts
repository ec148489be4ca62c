import { NextRequest } from 'next/server';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { NotFoundError } from '@holdfast/protocol/errors';
import { useTestDatabase } from '../../support/test-database';
import { useAppDatabase } from '../../support/app-database';

/** The console's route handlers (app/api/console/**) and the consoleEndpoint wrapper they run through, called in-process. */
const viewer = { type: 'person', id: 'viewer@example.com', role: 'viewer', teams: [] } as const;
const admin = { type: 'person', id: 'admin@example.com', role: 'admin', teams: [] } as const;
const session = vi.hoisted(() => ({ current: async (): Promise<unknown> => undefined }));
vi.mock('../../../lib/server/session', () => ({ getCurrentPerson: () => session.current() }));

const database = useTestDatabase();

useAppDatabase(database);
beforeEach(() => {
  session.current = async () => viewer;
});

const get = (path: string) => new NextRequest(`http://holdfast.test${path}`);
const noParams = { params: Promise.resolve({}) };

async function routes() {
  return {
    overview: (await import('../../../app/api/console/overview/route')).GET,
    stepStats: (await import('../../../app/api/console/step-stats/route')).GET,
    auditCsv: (await import('../../../app/api/console/audit.csv/route')).GET,
    bulkRedrive: (await import('../../../app/api/console/bulk-redrives/[id]/route')).GET,
  };
}

async function expectProblem(response: Response, status: number, body: Record<string, unknown>) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(await response.json()).toEqual({ type: 'about:blank', title: body.code, status, ...body });
}

describe('the console routes', () => {
  it('answer 401 UNAUTHENTICATED to no one signed in, before reading anything', async () => {
    session.current = async () => undefined;
    const { overview, stepStats, auditCsv, bulkRedrive } = await routes();
    const unauthenticated = { code: 'UNAUTHENTICATED', detail: 'Sign in first' };
    await expectProblem(await overview(get('/api/console/overview?window=nope')), 401, unauthenticated);
    await expectProblem(await stepStats(get('/api/console/step-stats')), 401, unauthenticated);
    await expectProblem(await auditCsv(get('/api/console/audit.csv')), 401, unauthenticated);
    await expectProblem(
      await bulkRedrive(get('/api/console/bulk-redrives/x'), { params: Promise.resolve({ id: 'x' }) }),
      401,
      unauthenticated,
    );
  });

  it('answer a viewer the Overview and step figures as JSON that is never cached', async () => {
    const { overview, stepStats } = await routes();
    for (const response of [
      await overview(get('/api/console/overview?window=24h')),
      await stepStats(get('/api/console/step-stats'), noParams),
    ]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual(expect.any(Object));
    }
  });

  it('answer a bad or unknown query parameter 400 INVALID_INPUT naming it', async () => {
    const { overview, stepStats } = await routes();
    const bad = await overview(get('/api/console/overview?window=forever'));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      code: 'INVALID_INPUT',
      retryable: false,
      fieldErrors: { window: expect.any(Array) },
    });
    const unknown = await stepStats(get('/api/console/step-stats?colour=red'));
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('export the audit log as a CSV attachment', async () => {
    const { auditCsv } = await routes();
    const response = await auditCsv(get('/api/console/audit.csv'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="holdfast-audit-[0-9T-]+\.csv"$/,
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect((await response.text()).split('\n')[0]).toContain('occurred_at');
  });

  it('answer an unknown bulk redrive 404 NOT_FOUND, and a malformed id 400', async () => {
    const { bulkRedrive } = await routes();
    await expectProblem(
      await bulkRedrive(get('/api/console/bulk-redrives/987654'), { params: Promise.resolve({ id: '987654' }) }),
      404,
      { code: 'NOT_FOUND', detail: 'No bulk redrive 987654' },
    );
    const malformed = await bulkRedrive(get('/api/console/bulk-redrives/0'), { params: Promise.resolve({ id: '0' }) });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ code: 'INVALID_INPUT', fieldErrors: { id: expect.any(Array) } });
  });
});

describe('consoleEndpoint', () => {
  it('refuses someone who may not do its action 403 FORBIDDEN naming why, and lets someone who may through', async () => {
    const { consoleEndpoint } = await import('../../../lib/server/console-endpoint');
    const handler = vi.fn(async ({ person }: { person: { id: string } }) => ({ hello: person.id }));
    const GET = consoleEndpoint({ action: 'people.manage' }, handler);
    const refused = await GET(get('/api/console/people'));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      code: 'FORBIDDEN',
      retryable: false,
      detail: expect.stringContaining('people.manage'),
    });
    expect(handler).not.toHaveBeenCalled();

    session.current = async () => admin;
    const allowed = await GET(get('/api/console/people'));
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ hello: 'admin@example.com' });
  });

  it('maps what a handler throws: a library error to its status, anything else to a 500 that shows nothing', async () => {
    const { consoleEndpoint } = await import('../../../lib/server/console-endpoint');
    const missing = consoleEndpoint({}, async () => {
      throw new NotFoundError('No such thing');
    });
    await expectProblem(await missing(get('/api/console/thing')), 404, { code: 'NOT_FOUND', detail: 'No such thing' });

    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken = consoleEndpoint({}, async () => {
      throw new Error('password=hunter2');
    });
    const response = await broken(get('/api/console/thing'));
    log.mockRestore();
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });
});
