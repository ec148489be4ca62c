import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayArgs } from '../../../packages/client/src/adapters/mcp/gateway-config';
import { type RunningGateway, serveGateway } from '../../../packages/client/src/adapters/mcp/serve';
import { waitFor } from '../../../scripts/ci/faults/killable-postgres';
import { demoServerEnv, type HoldfastServer, startHoldfastServer } from '../../support/holdfast-server';
import { addKnownOwners } from '../../support/known-owners';
import { type AskingMcpServer, startAskingMcpServer } from '../../support/mcp-asking-server';
import { TEST_KEY_SECRET, testClient, writeClientsFile } from '../../support/mcp-gateway-process';
import { useTestDatabase } from '../../support/test-database';
import { issueToken } from '../../support/api-tokens';

/**
 * The gateway passes on what a server asks of its client while a tool runs (sampling, elicitation, roots) to the
 * client whose call it is, and resource subscriptions with their updates to the client that subscribed: against a
 * stateful MCP server written with the SDK that asks (tests/support/mcp-asking-server.ts), the SDK's client, and a
 * real Holdfast recording the guarded calls.
 */
const require = createRequire(import.meta.url);
const database = useTestDatabase();
const OWNER = 'team:research';
const CLIENTS = ['asker-a', 'asker-b', 'watcher', 'toucher'].map((agent) => testClient(agent));
const scratch = mkdtempSync(path.join(tmpdir(), 'holdfast-mcp-pass-'));
const clientsFile = writeClientsFile(path.join(scratch, 'clients.json'), CLIENTS);
let holdfast: HoldfastServer;
let token: string;
let upstream: AskingMcpServer;
let gateway: RunningGateway;
const clients: Client[] = [];

beforeAll(async () => {
  await addKnownOwners(database.db, [OWNER]);
  ({ token } = await issueToken(database.db, { name: 'mcp passthrough' }));
  upstream = await startAskingMcpServer();
  holdfast = await startHoldfastServer({ env: demoServerEnv(database) });
  const config = gatewayOptions('asking', upstream.url);
  gateway = await serveGateway(config, { log: () => {} });
}, 300_000);

/** A listening gateway's options in front of the server at `url`, with the upstream's token in its environment. */
function gatewayOptions(serverName: string, url: string, ...extra: string[]) {
  return gatewayOptionsFor(serverName, ['--upstream-url', url, ...extra]);
}

/** The same in front of the upstream `upstream` names (`--upstream-url URL`, or `-- COMMAND` last). */
function gatewayOptionsFor(serverName: string, upstream: string[]) {
  return parseGatewayArgs(
    [
      ...['--holdfast-url', holdfast.baseUrl, '--server-name', serverName, '--owner', OWNER],
      ...['--listen', '127.0.0.1:0', '--clients', clientsFile.file],
      ...upstream,
    ],
    {
      ...clientsFile.env,
      HOLDFAST_TOKEN: token,
      HOLDFAST_MCP_KEY_SECRET: TEST_KEY_SECRET,
      UPSTREAM_TOKEN: 'upstream-secret-0123456789',
    },
  );
}

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await gateway?.close();
  await upstream?.close();
  await holdfast?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** A client of `agent` that can answer a server: its model says `modelSays`, its person `username`, its roots. */
async function askableClient(
  agent: string,
  answers: { modelSays?: string; username?: string; root?: string } = {},
  url = gateway.url!,
) {
  const client = new Client(
    { name: agent, version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  const asked: string[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const first = request.params.messages[0]?.content;
    asked.push(`sampling: ${first && 'text' in first ? first.text : ''}`);
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: answers.modelSays ?? 'yes' } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(`elicitation: ${request.params.message}`);
    return { action: 'accept', content: { username: answers.username ?? 'ada' } };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked.push('roots');
    return { roots: [{ uri: answers.root ?? 'file:///work/project', name: 'project' }] };
  });
  const secret = CLIENTS.find((each) => each.agent === agent)!.secret;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  clients.push(client);
  return { client, asked };
}

async function call(client: Client, name: string, args: Record<string, unknown>, key?: string) {
  return (await client.callTool(
    { name, arguments: args, ...(key ? { _meta: { 'io.holdfast/key': key } } : {}) },
    CallToolResultSchema,
    { timeout: 60_000 },
  )) as CallToolResult;
}
const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');

describe('what a server asks of its client, through the gateway', () => {
  it("passes sampling, elicitation and roots to the caller's client, and records the guarded calls", async () => {
    const { client, asked } = await askableClient('asker-a', { modelSays: 'forty-two', username: 'grace' });
    const sampled = await call(client, 'test_sampling', { prompt: 'What is six times seven?' }, 'ask-1');
    expect(textOf(sampled)).toBe('LLM response: forty-two (model test-model)');
    const elicited = await call(client, 'test_elicitation', { message: 'Who are you?' }, 'ask-2');
    expect(textOf(elicited)).toBe('elicited accept: {"username":"grace"}');
    const roots = await call(client, 'test_roots', {});
    expect(textOf(roots)).toBe('roots: file:///work/project');
    expect(asked).toEqual(['sampling: What is six times seven?', 'elicitation: Who are you?', 'roots']);
    // The two guarded calls are steps of asker-a; the read-only one went straight through.
    const attempts = await database.sql<{ step: string; outcome: string }[]>`
      select step, outcome from attempts where agent = 'asker-a' order by step`;
    expect(attempts).toEqual([
      { step: 'asking:test_elicitation', outcome: 'succeeded' },
      { step: 'asking:test_sampling', outcome: 'succeeded' },
    ]);
  });

  it('asks the client whose call it is, with two clients asking at once', async () => {
    const a = await askableClient('asker-a', { modelSays: 'from A' });
    const b = await askableClient('asker-b', { modelSays: 'from B' });
    const [fromA, fromB] = await Promise.all([
      call(a.client, 'test_sampling', { prompt: 'who answers?' }, 'both-a'),
      call(b.client, 'test_sampling', { prompt: 'who answers?' }, 'both-b'),
    ]);
    expect(textOf(fromA)).toBe('LLM response: from A (model test-model)');
    expect(textOf(fromB)).toBe('LLM response: from B (model test-model)');
    expect(a.asked).toEqual(['sampling: who answers?']);
    expect(b.asked).toEqual(['sampling: who answers?']);
  });
});

describe('resource subscriptions, through the gateway', () => {
  it('offers subscribe as the server does, and brings the updates to the subscribed client alone', async () => {
    const watcher = (await askableClient('watcher')).client;
    const toucher = new Client({ name: 'toucher', version: '1.0.0' });
    await toucher.connect(
      new StreamableHTTPClientTransport(new URL(gateway.url!), {
        requestInit: {
          headers: { authorization: `Bearer ${CLIENTS.find((each) => each.agent === 'toucher')!.secret}` },
        },
      }),
    );
    clients.push(toucher);
    expect(watcher.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });

    const heardByWatcher: string[] = [];
    const heardByToucher: string[] = [];
    watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      heardByWatcher.push(notification.params.uri);
    });
    toucher.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      heardByToucher.push(notification.params.uri);
    });
    await watcher.subscribeResource({ uri: 'test://watched-resource' });
    const touched = await call(toucher, 'touch_watched', {}, 'touch-1');
    expect(textOf(touched)).toBe('touched test://watched-resource for 1 subscriber(s)');
    await waitFor(async () => heardByWatcher.length === 1, 10_000, 'the watcher to hear of the change');
    expect(heardByWatcher).toEqual(['test://watched-resource']);
    expect(heardByToucher).toEqual([]);

    await watcher.unsubscribeResource({ uri: 'test://watched-resource' });
    const again = await call(toucher, 'touch_watched', {}, 'touch-2');
    expect(textOf(again)).toBe('touched test://watched-resource for 0 subscriber(s)');
  });
});

describe('an upstream that needs credentials', () => {
  it('is reached with the bearer token the gateway reads from its environment, and refused without it', async () => {
    const guarded = await startAskingMcpServer({ requireBearer: 'upstream-secret-0123456789' });
    const options = (...extra: string[]) => gatewayOptions('guarded', guarded.url, ...extra);
    try {
      await expect(serveGateway(options(), { log: () => {} })).rejects.toThrow();
      const reached = await serveGateway(options('--upstream-bearer-env', 'UPSTREAM_TOKEN'), { log: () => {} });
      try {
        const { client } = await askableClient('toucher', {}, reached.url!);
        expect(textOf(await call(client, 'test_roots', {}))).toBe('roots: file:///work/project');
      } finally {
        await reached.close();
      }
    } finally {
      await guarded.close();
    }
  });
});

describe('a real server from the registry that asks its client (server-everything)', () => {
  it('lists the same tools through the gateway as directly to a client that can answer it, and its sampling tool works', async () => {
    const command = [
      process.execPath,
      require.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
      'stdio',
    ];
    const direct = new Client(
      { name: 'direct', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
    );
    await direct.connect(new StdioClientTransport({ command: command[0]!, args: command.slice(1), stderr: 'ignore' }));
    clients.push(direct);
    const directTools = (await direct.listTools()).tools.map((tool) => tool.name).sort();

    const everything = await serveGateway(gatewayOptionsFor('everything', ['--', ...command]), { log: () => {} });
    try {
      const { client, asked } = await askableClient('asker-b', { modelSays: 'from the gateway' }, everything.url!);
      const throughTools = (await client.listTools()).tools.map((tool) => tool.name).sort();
      // Sixteen, the sampling, elicitation and roots tools among them: none vanishes behind the gateway.
      expect(throughTools).toEqual(directTools);
      expect(throughTools).toEqual(
        expect.arrayContaining(['trigger-sampling-request', 'trigger-elicitation-request', 'get-roots-list']),
      );
      const sampled = await call(
        client,
        'trigger-sampling-request',
        { prompt: 'Say hello', maxTokens: 20 },
        'everything-1',
      );
      expect(sampled.isError).toBeFalsy();
      expect(textOf(sampled)).toContain('from the gateway');
      expect(asked).toEqual([expect.stringMatching(/^sampling: .*Say hello/)]);
    } finally {
      await everything.close();
    }
  });
});
