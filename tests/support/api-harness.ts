import { NextRequest } from 'next/server';
import { afterAll, beforeAll } from 'vitest';
import { createApiToken, type Actor } from '../../packages/engine/src/core';
import { createHoldfastClient } from '@holdfast/client';
import { useTestDatabase } from './test-database';
import { closeAppDatabase } from './app-database';

type Handler = (request: NextRequest) => Promise<Response>;

/** Every agent route, by path: the real handlers, called in-process without an HTTP server. */
async function loadRoutes(): Promise<Map<string, { POST?: Handler; GET?: Handler }>> {
  const modules = {
    '/api/v1/attempts': import('../../app/api/v1/attempts/route'),
    '/api/v1/attempts/batch': import('../../app/api/v1/attempts/batch/route'),
    '/api/v1/keys/claim': import('../../app/api/v1/keys/claim/route'),
    '/api/v1/keys/complete': import('../../app/api/v1/keys/complete/route'),
    '/api/v1/keys/fail': import('../../app/api/v1/keys/fail/route'),
    '/api/v1/runs/start': import('../../app/api/v1/runs/start/route'),
    '/api/v1/runs/heartbeat': import('../../app/api/v1/runs/heartbeat/route'),
    '/api/v1/runs/finish': import('../../app/api/v1/runs/finish/route'),
    '/api/v1/slots/acquire': import('../../app/api/v1/slots/acquire/route'),
    '/api/v1/slots/heartbeat': import('../../app/api/v1/slots/heartbeat/route'),
    '/api/v1/slots/release': import('../../app/api/v1/slots/release/route'),
    '/api/v1/slots/evidence': import('../../app/api/v1/slots/evidence/route'),
    '/api/v1/holds': import('../../app/api/v1/holds/route'),
    '/api/v1/mcp-gateways/report': import('../../app/api/v1/mcp-gateways/report/route'),
    '/api/v1/dead-letters': import('../../app/api/v1/dead-letters/route'),
    '/api/v1/redrives/claim': import('../../app/api/v1/redrives/claim/route'),
    '/api/v1/redrives/ack': import('../../app/api/v1/redrives/ack/route'),
    '/api/v1/openapi.json': import('../../app/api/v1/openapi.json/route'),
    '/api/v1/step-stats': import('../../app/api/v1/step-stats/route'),
    '/api/v1/steps/begin': import('../../app/api/v1/steps/begin/route'),
    '/api/v1/steps/finish': import('../../app/api/v1/steps/finish/route'),
    '/api/v1/tasks/finish': import('../../app/api/v1/tasks/finish/route'),
    '/v1/traces': import('../../app/v1/traces/route'),
  };
  const routes = new Map<string, { POST?: Handler; GET?: Handler }>();
  for (const [path, module] of Object.entries(modules))
    routes.set(path, (await module) as { POST?: Handler; GET?: Handler });
  return routes;
}

/**
 * A test database wired to the API's handlers, tokens of each scope, and a
 * fetch that dispatches to the handlers in-process (for the typed client).
 */
export function useApi() {
  const database = useTestDatabase();
  const state = { routes: new Map<string, { POST?: Handler; GET?: Handler }>(), ingest: '', read: '' };

  beforeAll(async () => {
    process.env.DATABASE_URL = database.url;
    state.routes = await loadRoutes();
    const admin: Actor = { type: 'person', id: 'admin@example.com', role: 'admin', teams: [] };
    state.ingest = (
      await createApiToken({ db: database.db, actor: admin }, { name: 'contract-ingest', scopes: ['ingest'] })
    ).token;
    state.read = (
      await createApiToken({ db: database.db, actor: admin }, { name: 'contract-read', scopes: ['read'] })
    ).token;
  });
  afterAll(closeAppDatabase);

  const fetchInProcess: typeof fetch = async (input, init) => {
    const request = new NextRequest(
      input instanceof Request ? input : new URL(String(input), 'http://holdfast.test'),
      init as ConstructorParameters<typeof NextRequest>[1],
    );
    // Every HTTP/1.1 request names its host, and the traces receiver answers only to Holdfast's own names.
    if (!request.headers.has('host')) request.headers.set('host', 'localhost');
    const route = state.routes.get(request.nextUrl.pathname);
    const handler = route?.[request.method as 'POST' | 'GET'];
    if (!handler) return new Response(null, { status: 404 });
    return handler(request);
  };

  return {
    database,
    get ingestToken() {
      return state.ingest;
    },
    get readToken() {
      return state.read;
    },
    fetch: fetchInProcess,
    /** A raw request: any body (string as is), any headers. */
    async request(
      path: string,
      options: { body?: unknown; token?: string | null; headers?: Record<string, string>; method?: string } = {},
    ) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
      const token = options.token === undefined ? state.ingest : options.token;
      if (token) headers.authorization = `Bearer ${token}`;
      // A string or a stream goes as it is (a stream has no Content-Length); anything else as JSON.
      const body =
        options.body === undefined
          ? undefined
          : typeof options.body === 'string' || options.body instanceof ReadableStream
            ? options.body
            : JSON.stringify(options.body);
      const response = await fetchInProcess(`http://holdfast.test${path}`, {
        method: options.method ?? 'POST',
        headers,
        body,
        duplex: 'half',
      } as RequestInit);
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
    },
    client(token?: string) {
      return createHoldfastClient({
        baseUrl: 'http://holdfast.test',
        token: token ?? state.ingest,
        fetch: fetchInProcess,
      });
    },
  };
}
