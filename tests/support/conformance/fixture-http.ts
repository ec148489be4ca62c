import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createConformanceServer } from './fixture-server';

export interface ConformanceFixture {
  url: string;
  close(): Promise<void>;
}

/**
 * The conformance fixture served over Streamable HTTP on 127.0.0.1, a session per client (a client's answer to the
 * server's request arrives as a request of its own), refusing a Host that is not this machine's.
 */
export async function startConformanceFixture(): Promise<ConformanceFixture> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const subscribers = new Set<McpServer>();
  let port = 0;
  const http: HttpServer = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : undefined;
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (!transport && request.method === 'POST' && isInitializeRequest(body)) {
        const server = createConformanceServer(subscribers);
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void transports.set(sessionId, created),
          enableDnsRebindingProtection: true,
          allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
        });
        created.onclose = () => {
          if (created.sessionId) transports.delete(created.sessionId);
          subscribers.delete(server);
        };
        await server.connect(created);
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
    close: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
