/**
 * A payments MCP server over stdio, written with the SDK, for the gateway to
 * start as its upstream (`-- node --import tsx tests/support/mcp-stdio-server.ts FILE`).
 * It runs in the gateway's child process, so it counts its side effects in
 * FILE, one line per charge, where the test reads them. Its tools:
 * - `charge_card`: charges and answers the charge;
 * - `charge_then_die`: charges, then the process dies before it answers (SIGKILL
 *   to itself), as a server that crashes between acting and answering.
 */
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const effectsFile = process.argv[2];
if (!effectsFile) throw new Error('usage: mcp-stdio-server.ts EFFECTS_FILE');

const charge = (tool: string, orderId: string) => appendFileSync(effectsFile, `${tool} ${orderId}\n`);

const server = new McpServer({ name: 'stdio-payments', version: '1.0.0' });
server.registerTool('charge_card', { inputSchema: { orderId: z.string() } }, async ({ orderId }) => {
  charge('charge_card', orderId);
  return { content: [{ type: 'text', text: `charged ${orderId}` }] };
});
server.registerTool('charge_then_die', { inputSchema: { orderId: z.string() } }, async ({ orderId }) => {
  charge('charge_then_die', orderId);
  process.kill(process.pid, 'SIGKILL');
  return { content: [{ type: 'text', text: 'never sent' }] };
});
await server.connect(new StdioServerTransport());
