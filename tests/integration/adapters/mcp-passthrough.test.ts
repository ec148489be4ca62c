import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, serveGateway } from '../../../packages/client/src/adapters/mcp/serve';
import { waitFor } from '../../../scripts/ci/faults/killable-postgres';
import { type AskingMcpServer, startAskingMcpServer } from '../../support/mcp-asking-server';
import { useTestDatabase } from '../../support/test-database';
import { useGatewayHoldfast } from '../../support/mcp-gateway-holdfast';

/**
 * The gateway passes on what a server asks of its client while a tool runs (sampling, elicitation, roots) to the
 * client whose call it is, and resource subscriptions with their updates to the client that subscribed: against a
 * stateful MCP server written with the SDK that asks (tests/support/mcp-asking-server.ts), the SDK's client, and a
 * real Holdfast recording the guarded calls.
 */
const require = createRequire(import.meta.url);
const database = useTestDatabase();
const OWNER = 'team:research';
const base = useGatewayHoldfast(database, OWNER, ['asker-a', 'asker-b', 'watcher', 'toucher', 'tasker'], {
  UPSTREAM_TOKEN: 'upstream-secret-0123456789',
  UPSTREAM_KEY: 'upstream-api-key-0123456789',
});
let upstream: AskingMcpServer;
let gateway: RunningGateway;
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startAskingMcpServer();
  gateway = await serveGateway(gatewayOptions('asking', upstream.url), { log: () => {} });
});

/** A listening gateway's options in front of the server at `url`. */
function gatewayOptions(serverName: string, url: string, ...extra: string[]) {
  return base.options(serverName, ['--upstream-url', url, ...extra]);
}

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await gateway?.close();
  await upstream?.close();
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
  const secret = base.clientOf(agent).secret;
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
          headers: { authorization: `Bearer ${base.clientOf('toucher').secret}` },
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
  for (const { what, server, option } of [
    {
      what: 'the bearer token',
      server: { requireBearer: 'upstream-secret-0123456789' },
      option: ['--upstream-bearer-env', 'UPSTREAM_TOKEN'],
    },
    {
      what: 'the API key header',
      server: { requireHeader: { name: 'X-Api-Key', value: 'upstream-api-key-0123456789' } },
      option: ['--upstream-header', 'X-Api-Key=UPSTREAM_KEY'],
    },
  ]) {
    it(`is reached with ${what} the gateway reads from its environment, and refused without it`, async () => {
      const guarded = await startAskingMcpServer(server);
      const options = (...extra: string[]) => gatewayOptions('guarded', guarded.url, ...extra);
      try {
        await expect(serveGateway(options(), { log: () => {} })).rejects.toThrow();
        const reached = await serveGateway(options(...option), { log: () => {} });
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
  }
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

    const everything = await serveGateway(base.options('everything', ['--', ...command]), { log: () => {} });
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
      // server-everything also asks a client that declares roots for its roots once it is initialized, at a
      // moment of its own choosing (seen before and after the call under load); only the sampling ask is this call's.
      expect(asked.filter((ask) => ask !== 'roots')).toEqual([expect.stringMatching(/^sampling: .*Say hello/)]);
    } finally {
      await everything.close();
    }
  });
});

describe("a server's tasks through the gateway (server-everything)", () => {
  const everythingCommand = () => [
    process.execPath,
    require.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
    'stdio',
  ];
  /** A client that can run a sampling as a task of its own (it keeps its tasks), as well as answer one at once. */
  const stores: InMemoryTaskStore[] = [];
  afterAll(() => {
    for (const store of stores) store.cleanup();
  });
  function taskingClient(name: string) {
    stores.push(new InMemoryTaskStore());
    const client = new Client(
      { name, version: '1.0.0' },
      {
        capabilities: {
          sampling: {},
          elicitation: {},
          tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } },
        },
        taskStore: stores.at(-1),
      },
    );
    const ranAsTask: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      const answer = {
        role: 'assistant' as const,
        model: 'test-model',
        content: { type: 'text' as const, text: 'a task answer' },
      };
      if (!request.params.task || !extra.taskStore) return answer;
      const task = await extra.taskStore.createTask({ ttl: 60_000 });
      ranAsTask.push(task.taskId);
      setTimeout(() => void extra.taskStore!.storeTaskResult(task.taskId, 'completed', answer), 50);
      return { task };
    });
    clients.push(client);
    return { client, ranAsTask };
  }

  it('lists the task tools, runs a guarded tool as a task (a repeat replayed), and passes a task the server asks the client to run', async () => {
    const command = everythingCommand();
    const direct = taskingClient('direct-tasker').client;
    await direct.connect(new StdioClientTransport({ command: command[0]!, args: command.slice(1), stderr: 'ignore' }));
    const directTools = (await direct.listTools()).tools.map((tool) => tool.name).sort();

    const everything = await serveGateway(base.options('everything-tasks', ['--', ...command]), { log: () => {} });
    try {
      const { client, ranAsTask } = taskingClient('tasker');
      await client.connect(
        new StreamableHTTPClientTransport(new URL(everything.url!), {
          requestInit: { headers: { authorization: `Bearer ${base.clientOf('tasker').secret}` } },
        }),
      );
      // The task tools, the one a client runs as its own task among them, are listed as directly.
      expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
      const throughTools = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(throughTools).toEqual(directTools);
      expect(throughTools).toEqual(
        expect.arrayContaining(['simulate-research-query', 'trigger-sampling-request-async']),
      );

      // A tool the server runs only as a task: created at once, its statuses polled, its report the result.
      const research = async () => {
        const seen: string[] = [];
        let result: CallToolResult | undefined;
        const stream = client.experimental.tasks.callToolStream(
          {
            name: 'simulate-research-query',
            arguments: { topic: 'idempotency' },
            _meta: { 'io.holdfast/key': 'research-1' },
          },
          CallToolResultSchema,
          { task: { ttl: 60_000 }, timeout: 60_000 },
        );
        for await (const message of stream) {
          seen.push(message.type === 'taskStatus' ? `status:${message.task.status}` : message.type);
          if (message.type === 'result') result = message.result as CallToolResult;
          if (message.type === 'error') throw message.error;
        }
        return { seen, result: result! };
      };
      const first = await research();
      expect(first.seen[0]).toBe('taskCreated');
      expect(first.seen).toContain('status:completed');
      expect(textOf(first.result)).toContain('Research Report: idempotency');
      expect(first.result._meta?.['io.holdfast/replayed']).toBeUndefined();
      // The same operation again: a task too, answered from Holdfast, not run again.
      const again = await research();
      expect(textOf(again.result)).toBe(textOf(first.result));
      expect(again.result._meta?.['io.holdfast/replayed']).toBeDefined();
      // The gateway lists the session's tasks: the two it made.
      expect((await client.experimental.tasks.listTasks()).tasks.map((task) => task.status)).toEqual([
        'completed',
        'completed',
      ]);

      // The server asks the client to run a sampling as the client's task, and polls it, through the gateway.
      const asyncSampling = { prompt: 'Say hi', maxTokens: 10 };
      const sampled = await call(client, 'trigger-sampling-request-async', asyncSampling, 'async-1');
      expect([sampled.isError ?? false, textOf(sampled), ranAsTask.length]).toEqual([
        false,
        expect.stringContaining('a task answer'),
        1,
      ]);

      // A tool the server does not run as a task is refused as a task, as the server would (-32601), and nothing runs.
      const refused = await client
        .request(
          { method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' }, task: { ttl: 1_000 } } },
          CallToolResultSchema,
        )
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(-32601);
    } finally {
      await everything.close();
    }
  }, 120_000);
});
