import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type StatefulMcpHost, serveStatefulMcp } from '../stateful-mcp-host';
import { createConformanceServer } from './fixture-server';

export type ConformanceFixture = StatefulMcpHost;

/** The conformance fixture over Streamable HTTP on 127.0.0.1, a session per client, refusing a foreign Host. */
export function startConformanceFixture(): Promise<ConformanceFixture> {
  const subscribers = new Set<McpServer>();
  return serveStatefulMcp(({ onEnd }) => {
    const server = createConformanceServer(subscribers);
    onEnd(() => subscribers.delete(server));
    return server;
  });
}
