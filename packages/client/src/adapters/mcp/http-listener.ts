import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { authenticateClient, type ClientCredential } from './client-credentials';

/** The one path the gateway serves. */
export const MCP_PATH = '/mcp';
/** A tools/call's arguments may be large, but not without end. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface HttpListenerOptions {
  port: number;
  /** Who may call: a request without one of these clients' secrets is answered 401, and nothing is run. */
  clients: readonly ClientCredential[];
  /** The MCP server of one new session of this client. */
  newSession: (client: ClientCredential) => Server;
  /** The most sessions one client may have open: one client cannot take the room of the others. */
  maxSessionsPerClient: number;
  /** A session with no request open for this long is ended, and its memory freed. */
  sessionIdleMs: number;
  /** The clock idleness is measured by (tests pass their own). */
  now: () => number;
}

/** One client's session: its transport, and whether it is in use. */
interface Session {
  client: ClientCredential;
  transport: StreamableHTTPServerTransport;
  /** Requests of the session not yet answered (a tool call under way, an open event stream). */
  openRequests: number;
  lastActiveMs: number;
}

/** How often idle sessions are looked for even when no request comes. */
const LONGEST_SWEEP_INTERVAL_MS = 60_000;

/**
 * Serves MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp, one session
 * per client connection (each its own MCP server). Every request carries a
 * client's secret (`Authorization: Bearer ...`): the session belongs to that
 * client, its calls are the client's agent's, and no other client can use it.
 * Only 127.0.0.1 is bound, and requests naming another Host are refused (the
 * SDK's DNS rebinding protection), so a web page cannot reach the tools either.
 */
export async function listenStreamableHttp(options: HttpListenerOptions): Promise<HttpListener> {
  const sessions = new Set<Session>();
  const byId = new Map<string, Session>();
  let allowedHosts: string[] = [];

  const http = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) answerError(response, 500, `the gateway failed: ${String(error)}`);
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== MCP_PATH) {
      return answerError(response, 404, `the gateway serves MCP at ${MCP_PATH} only`);
    }
    const client = authenticateClient(options.clients, request.headers.authorization);
    if (!client) {
      response.setHeader('www-authenticate', 'Bearer realm="holdfast-mcp"');
      return answerError(
        response,
        401,
        request.headers.authorization === undefined
          ? "no credential: send Authorization: Bearer <secret>, the secret of a client in the gateway's --clients file"
          : "the credential is not the secret of any client in the gateway's --clients file",
      );
    }
    endIdleSessions();
    const sessionId = request.headers['mcp-session-id'];
    const found = typeof sessionId === 'string' ? byId.get(sessionId) : undefined;
    // Another client's session is no session of this one: it is not told the session exists.
    const existing = found?.client === client ? found : undefined;
    if (request.method !== 'POST') {
      // GET (the server's event stream) and DELETE (the end of a session) belong to a session.
      if (!existing) return answerError(response, sessionId ? 404 : 400, 'no such session');
      trackRequest(existing, response);
      return existing.transport.handleRequest(request, response);
    }
    const body = await readJson(request);
    if (!body.ok) return answerError(response, body.status, body.problem);
    if (existing) {
      trackRequest(existing, response);
      return existing.transport.handleRequest(request, response, body.value);
    }
    if (sessionId)
      return answerError(response, 404, 'no such session (it ended or was idle too long): initialize again');
    const initializes = Array.isArray(body.value)
      ? body.value.some(isInitializeRequest)
      : isInitializeRequest(body.value);
    if (!initializes) return answerError(response, 400, 'no session: the first request must be initialize');
    const open = [...sessions].filter((session) => session.client === client).length;
    if (open >= options.maxSessionsPerClient) {
      response.setHeader('retry-after', String(Math.ceil(options.sessionIdleMs / 1_000)));
      return answerError(
        response,
        429,
        `client ${client.name} has ${open} sessions open, the most the gateway allows one client (--max-sessions-per-client): end one (DELETE ${MCP_PATH} with its Mcp-Session-Id) or wait for an idle one to end`,
      );
    }

    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableDnsRebindingProtection: true,
      allowedHosts,
      onsessioninitialized: (id) => {
        byId.set(id, session);
      },
      onsessionclosed: () => forget(session),
    });
    const session: Session = { client, transport, openRequests: 0, lastActiveMs: options.now() };
    sessions.add(session);
    const server = options.newSession(client);
    // The server hears of the close itself (connect chains onto this handler) and lets its session go.
    transport.onclose = () => forget(session);
    await server.connect(transport);
    trackRequest(session, response);
    await transport.handleRequest(request, response, body.value);
    // An initialize the transport refused (a bad Host, a bad request) opened no session: nothing is kept of it.
    if (transport.sessionId === undefined) endSession(session);
  }

  function trackRequest(session: Session, response: ServerResponse): void {
    session.openRequests += 1;
    session.lastActiveMs = options.now();
    response.once('close', () => {
      session.openRequests -= 1;
      session.lastActiveMs = options.now();
    });
  }

  function forget(session: Session): void {
    sessions.delete(session);
    if (session.transport.sessionId !== undefined) byId.delete(session.transport.sessionId);
  }

  function endSession(session: Session): void {
    forget(session);
    void session.transport.close().catch(() => {});
  }

  /** Ends every session with no request open and none for sessionIdleMs. */
  function endIdleSessions(): void {
    const now = options.now();
    for (const session of sessions) {
      if (session.openRequests === 0 && now - session.lastActiveMs >= options.sessionIdleMs) endSession(session);
    }
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, '127.0.0.1', () => resolve());
  });
  const sweeper = setInterval(endIdleSessions, Math.min(options.sessionIdleMs, LONGEST_SWEEP_INTERVAL_MS));
  sweeper.unref();
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  return {
    url: `http://127.0.0.1:${bound}${MCP_PATH}`,
    port: bound,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...sessions].map((session) => session.transport.close()));
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}

/** A JSON-RPC error without an id: the request could not be read as one. */
function answerError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(
  request: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; status: number; problem: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, problem: `the body is over ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk as Buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, problem: 'the body is not JSON' };
  }
}
