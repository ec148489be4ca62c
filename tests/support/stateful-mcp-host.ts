import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export interface StatefulMcpHost {
  url: string;
  /** How many sessions have been opened. */
  sessions(): number;
  close(): Promise<void>;
}

/**
 * Serves MCP servers over Streamable HTTP on 127.0.0.1 with a session per client (a client's answer to the server's
 * request arrives as a request of its own, so the server must be the same one): `newServer` makes each session's,
 * told its session id and when the session ends. `requireBearer`: every request names that token, or gets 401;
 * `requireHeader`: every request carries that header with that value, or gets 401.
 * A Host that is not this machine's is refused (the SDK's DNS-rebinding check).
 */
export async function serveStatefulMcp(
  newServer: (session: { id: () => string | undefined; onEnd: (end: () => void) => void }) => McpServer,
  options: { requireBearer?: string; requireHeader?: { name: string; value: string } } = {},
): Promise<StatefulMcpHost> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let sessions = 0;
  let port = 0;
  const http: HttpServer = createServer((request, response) => {
    const header = options.requireHeader;
    if (
      (options.requireBearer && request.headers.authorization !== `Bearer ${options.requireBearer}`) ||
      (header && request.headers[header.name.toLowerCase()] !== header.value)
    ) {
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : undefined;
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (!transport && request.method === 'POST' && isInitializeRequest(body)) {
        const ends: (() => void)[] = [];
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => {
            transports.set(sessionId, created);
            sessions += 1;
          },
          enableDnsRebindingProtection: true,
          allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
        });
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId);
          for (const end of ends) end();
        };
        await newServer({ id: () => created.sessionId, onEnd: (end) => ends.push(end) }).connect(created);
        transport = created;
      }
      if (!transport) {
        response.writeHead(id === undefined ? 400 : 404).end();
        return;
      }
      await transport.handleRequest(request, response, body);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions: () => sessions,
    close: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
