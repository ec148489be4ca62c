import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createConformanceServer } from './fixture-server';

/** The conformance fixture over stdio, as a gateway starts a server (`-- node --import tsx <this file>`). */
const subscribers = new Set<McpServer>();
await createConformanceServer(subscribers).connect(new StdioServerTransport());
