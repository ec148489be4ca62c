import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** The one path the gateway serves. */
export const MCP_PATH = '/mcp';
/** A tools/call's arguments may be large, but not without end. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves MCP over Streamable HTTP at http://127.0.0.1:PORT/mcp, one session
 * per client (each its own MCP server, so each knows its client's name). Only
 * 127.0.0.1 is bound, and requests naming another Host are refused (the SDK's
 * DNS rebinding protection), so a web page cannot reach the tools either.
 */
export async function listenStreamableHttp(port: number, newSession: () => Server): Promise<HttpListener> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
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
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (request.method !== 'POST') {
      // GET (the server's event stream) and DELETE (the end of a session) belong to a session.
      if (!existing) return answerError(response, sessionId ? 404 : 400, 'no such session');
      return existing.handleRequest(request, response);
    }
    const body = await readJson(request);
    if (!body.ok) return answerError(response, body.status, body.problem);
    if (existing) return existing.handleRequest(request, response, body.value);
    if (sessionId) return answerError(response, 404, 'no such session: initialize again');
    const initializes = Array.isArray(body.value)
      ? body.value.some(isInitializeRequest)
      : isInitializeRequest(body.value);
    if (!initializes) return answerError(response, 400, 'no session: the first request must be initialize');

    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableDnsRebindingProtection: true,
      allowedHosts,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    const server = newSession();
    // The server hears of the close itself (connect chains onto this handler) and lets its session go.
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, body.value);
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  return {
    url: `http://127.0.0.1:${bound}${MCP_PATH}`,
    port: bound,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
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
