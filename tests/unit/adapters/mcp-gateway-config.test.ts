import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  authenticateClient,
  parseClientCredentials,
} from '../../../packages/client/src/adapters/mcp/client-credentials';
import { ConfigError, parseGatewayArgs } from '../../../packages/client/src/adapters/mcp/gateway-config';
import { isOurMetaName, parseCallMeta, splitMeta } from '../../../packages/client/src/adapters/mcp/meta-fields';
import { toolPolicy } from '../../../packages/client/src/adapters/mcp/tool-policy';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { GatewayReport } from '../../../packages/client/src/adapters/mcp/gateway-report';
import { ToolControls } from '../../../packages/client/src/adapters/mcp/tool-controls';
import type { HoldfastClient } from '../../../packages/client/src/client-types';
import type { McpGatewayReportInput } from '@holdfast/protocol/inputs/mcp-gateway-report-input';

/** The gateway's credentials, its command line, and its `_meta` names, without a server. */
const SECRET = 'r'.repeat(40);
const KEY_SECRET = 'k'.repeat(40);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const env = { HOLDFAST_TOKEN: 'hf_test', HOLDFAST_MCP_KEY_SECRET: KEY_SECRET, RESEARCH_SECRET: SECRET };
const clientsText = JSON.stringify({
  clients: [
    { name: 'research-desktop', agent: 'research', secretEnv: 'RESEARCH_SECRET' },
    { name: 'payments-worker', agent: 'payments', secretSha256: sha256('p'.repeat(40)) },
  ],
});
const base = ['--holdfast-url', 'http://127.0.0.1:3000', '--server-name', 'payments', '--owner', 'team:payments'];
const parse = (args: string[], environment: Record<string, string | undefined> = env, text = clientsText) =>
  parseGatewayArgs([...base, ...args, '--upstream-url', 'http://127.0.0.1:9/mcp'], environment, () => text);

describe('client credentials', () => {
  it('finds the client by its secret, from a variable or a hash, and nothing else', () => {
    const clients = parseClientCredentials(clientsText, env);
    expect(authenticateClient(clients, `Bearer ${SECRET}`)).toMatchObject({
      name: 'research-desktop',
      agent: 'research',
    });
    expect(authenticateClient(clients, `bearer ${'p'.repeat(40)}`)).toMatchObject({ agent: 'payments' });
    for (const header of [
      undefined,
      '',
      'Bearer',
      `Bearer ${SECRET}x`,
      `Basic ${SECRET}`,
      `Bearer ${sha256(SECRET)}`,
    ]) {
      expect(authenticateClient(clients, header)).toBeUndefined();
    }
  });

  it('refuses a file it cannot be sure of', () => {
    const file = (clients: unknown[]) => JSON.stringify({ clients });
    const refused: [string, Record<string, string>, RegExp][] = [
      ['not json', env, /not JSON/],
      [file([]), env, /at least one client/],
      [file([{ name: 'a', agent: 'a', secret: SECRET }]), env, /holds a "secret"/],
      [file([{ name: 'a', agent: 'a' }]), env, /exactly one of secretEnv and secretSha256/],
      [file([{ name: 'a', agent: 'a', secretEnv: 'NOPE' }]), env, /NOPE is not set/],
      [file([{ name: 'a', agent: 'a', secretEnv: 'SHORT' }]), { ...env, SHORT: 'x'.repeat(31) }, /at least 32/],
      [file([{ name: 'a', agent: 'a', secretSha256: 'xyz' }]), env, /64 hex digits/],
      [file([{ name: 'a', agent: 'bad agent', secretEnv: 'RESEARCH_SECRET' }]), env, /clients\.0\.agent/],
      [
        file([
          { name: 'a', agent: 'a', secretEnv: 'RESEARCH_SECRET' },
          { name: 'b', agent: 'b', secretSha256: sha256(SECRET) },
        ]),
        env,
        /clients a and b have the same secret/,
      ],
      [
        file([
          { name: 'a', agent: 'a', secretEnv: 'RESEARCH_SECRET' },
          { name: 'a', agent: 'b', secretSha256: sha256('q'.repeat(40)) },
        ]),
        env,
        /names client a twice/,
      ],
    ];
    for (const [text, environment, problem] of refused) {
      expect(() => parseClientCredentials(text, environment)).toThrow(problem);
    }
  });
});

describe('the gateway command line', () => {
  it('needs --clients to listen, a key secret always, and --agent only over stdio', () => {
    expect(() => parse(['--listen', '127.0.0.1:0'], env, clientsText)).toThrow(/--listen needs --clients FILE/);
    expect(() => parse(['--listen', '127.0.0.1:0', '--clients', 'c.json', '--agent', 'x'])).toThrow(
      /--agent is for stdio/,
    );
    expect(() => parse(['--clients', 'c.json'])).toThrow(/--clients is for --listen/);
    expect(() => parse(['--max-sessions-per-client', '3'])).toThrow(/is for --listen/);
    expect(() => parse([], { ...env, HOLDFAST_MCP_KEY_SECRET: undefined })).toThrow(ConfigError);
    expect(() => parse([], { ...env, HOLDFAST_MCP_KEY_SECRET: 'short' })).toThrow(/at least 32 characters/);
    expect(() => parse(['--listen', '127.0.0.1:0', '--clients', 'c.json'], env, '{}')).toThrow(/--clients c\.json:/);

    const listening = parse(['--listen', '127.0.0.1:0', '--clients', 'c.json', '--session-idle-ms', '5000']);
    expect(listening.clients.map((client) => client.agent)).toEqual(['research', 'payments']);
    expect(listening).toMatchObject({ sessionIdleMs: 5000, maxSessionsPerClient: 100, keySecret: KEY_SECRET });
    // A stdio server the gateway starts is given none of its secrets.
    expect(listening.secretEnvNames).toEqual(['HOLDFAST_TOKEN', 'HOLDFAST_MCP_KEY_SECRET', 'RESEARCH_SECRET']);
    expect(parse(['--agent', 'research'])).toMatchObject({ agent: 'research', clients: [] });
  });
});

describe('_meta names', () => {
  it('are the gateway’s in any case or width, and only the exact lower-case names are fields', () => {
    for (const name of ['io.holdfast/key', 'IO.HOLDFAST/key', 'Io.HoldFast/task', 'ｉｏ.holdfast/key']) {
      expect(isOurMetaName(name)).toBe(true);
    }
    expect(isOurMetaName('io.other/key')).toBe(false);
    const { ours, forwarded } = splitMeta({ 'IO.HOLDFAST/key': 'k-1', traceparent: 't' });
    expect(forwarded).toEqual({ traceparent: 't' });
    expect(parseCallMeta(ours)).toEqual({
      ok: false,
      problem:
        '_meta "IO.HOLDFAST/key" is not a field of the gateway (it knows io.holdfast/key and io.holdfast/task, spelt in lower case)',
    });
    expect(parseCallMeta(splitMeta({ 'io.holdfast/key': 'k-1' }).ours)).toEqual({ ok: true, meta: { key: 'k-1' } });
  });
});

describe("each tool's policy", () => {
  const rules = (args: string[]) => {
    const config = parse(args);
    return {
      guard: new Set(config.guard),
      noGuard: new Set(config.noGuard),
      keyless: new Map(Object.entries(config.keyless)),
      keylessDefault: config.keylessDefault,
    };
  };
  const tool = (annotations: Tool['annotations']): Tool => ({
    name: 't',
    inputSchema: { type: 'object' },
    ...(annotations ? { annotations } : {}),
  });

  it('reads annotations only toward what is safe, and lets the options override them by name', () => {
    const plain = rules([]);
    expect(toolPolicy(plain, 't', tool({ readOnlyHint: true }))).toEqual({
      guarded: false,
      keyless: 'window',
      from: 'annotations',
    });
    expect(toolPolicy(plain, 't', tool({ idempotentHint: true }))).toMatchObject({ guarded: true, keyless: 'always' });
    // Idempotent and destructive: a repeat is not assumed harmless.
    expect(toolPolicy(plain, 't', tool({ idempotentHint: true, destructiveHint: true }))).toMatchObject({
      keyless: 'window',
    });
    // Not listed (or a list that cannot be read): guarded, the default mode.
    expect(toolPolicy(plain, 't', undefined)).toEqual({ guarded: true, keyless: 'window', from: 'default' });

    const configured = rules(['--keyless', 't=refuse', '--keyless-default', 'always', '--guard', 'g']);
    expect(toolPolicy(configured, 't', tool({ idempotentHint: true }))).toEqual({
      guarded: true,
      keyless: 'refuse',
      from: 'config',
    });
    expect(toolPolicy(configured, 'other', undefined)).toMatchObject({ keyless: 'always' });
    expect(toolPolicy(configured, 'g', tool({ readOnlyHint: true }))).toMatchObject({ guarded: true, from: 'config' });
  });

  it('refuses a --keyless it cannot read, naming it', () => {
    for (const [args, message] of [
      [['--keyless', 'charge'], /give TOOL=MODE/],
      [['--keyless', '=refuse'], /give TOOL=MODE/],
      [['--keyless', 'charge=sometimes'], /--keyless charge must be one of window, always, refuse/],
      [['--keyless', 'charge=refuse', '--keyless', 'charge=always'], /names charge twice/],
      [['--keyless-default', 'never'], /--keyless-default must be one of/],
    ] as const) {
      expect(() => parse([...args])).toThrow(ConfigError);
      expect(() => parse([...args])).toThrow(message);
    }
  });
});

describe("an upstream's credentials", () => {
  it('reads each header from the environment, keeps it from a server the gateway starts, and names what is missing', () => {
    const config = parse(['--upstream-bearer-env', 'UP_TOKEN', '--upstream-header', 'X-Api-Key=UP_KEY'], {
      ...env,
      UP_TOKEN: 'tok',
      UP_KEY: 'key',
    });
    expect(config.upstream).toEqual({
      kind: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { 'X-Api-Key': 'key', Authorization: 'Bearer tok' },
    });
    expect(config.secretEnvNames).toEqual(expect.arrayContaining(['UP_TOKEN', 'UP_KEY']));
    expect(() => parse(['--upstream-bearer-env', 'UNSET_TOKEN'])).toThrow(/read from UNSET_TOKEN, which is not set/);
    expect(() => parse(['--upstream-header', 'bad header=UP_KEY'], { ...env, UP_KEY: 'k' })).toThrow(/NAME=ENV_VAR/);
    expect(() =>
      parseGatewayArgs([...base, '--upstream-bearer-env', 'UP_TOKEN', '--', 'node', 'server.js'], {
        ...env,
        UP_TOKEN: 't',
      }),
    ).toThrow(/are for --upstream-url/);
  });
});

describe("the gateway's report", () => {
  it('keeps 20 unknown tool names by name and counts the rest together, so a caller cannot fill it', async () => {
    const sent: McpGatewayReportInput[] = [];
    const holdfast = {
      reportMcpGateway: async (report: McpGatewayReportInput) => {
        sent.push(report);
        return { counted: 0 };
      },
    } as unknown as HoldfastClient;
    const report = new GatewayReport(
      parse([]),
      holdfast,
      () => Date.UTC(2026, 0, 5),
      () => {},
    );
    for (let name = 0; name < 30; name += 1) report.count(`typo_${name}`, 'refused_unknown_tool');
    report.count('typo_0', 'refused_unknown_tool');
    report.count('charge', 'ran');
    await report.send();
    const counts = sent[0]!.counts;
    expect(counts.filter((count) => count.tool.startsWith('typo_'))).toHaveLength(20);
    expect(counts).toContainEqual({ tool: 'typo_0', outcome: 'refused_unknown_tool', calls: 2 });
    expect(counts).toContainEqual({ tool: '(other unknown tools)', outcome: 'refused_unknown_tool', calls: 10 });
    expect(counts).toContainEqual({ tool: 'charge', outcome: 'ran', calls: 1 });
    // A report that fails keeps its counts for the next.
    const failing = new GatewayReport(
      parse([]),
      {
        reportMcpGateway: async () => {
          throw new Error('Holdfast is away');
        },
      } as unknown as HoldfastClient,
      Date.now,
      () => {},
    );
    failing.count('charge', 'ran');
    await failing.send();
    failing.count('charge', 'ran');
    const retried: McpGatewayReportInput[] = [];
    (failing as unknown as { holdfast: HoldfastClient }).holdfast = {
      reportMcpGateway: async (sentReport: McpGatewayReportInput) => {
        retried.push(sentReport);
        return { counted: 0 };
      },
    } as unknown as HoldfastClient;
    await failing.send();
    expect(retried[0]!.counts).toEqual([{ tool: 'charge', outcome: 'ran', calls: 2 }]);
  });
});

describe("a tool's controls", () => {
  it('takes each value from the most specific place that sets it, the console before the command line', () => {
    const controls = new ToolControls(
      parse(['--tool-price', 'charge=0.01', '--tool-price-default', '0.001', '--rate-limit', 'charge=5/m']),
    );
    expect([controls.priceMicros('charge'), controls.priceMicros('refund')]).toEqual([10_000, 1_000]);
    controls.replaceConsoleControls([
      { tool: '*', priceMicros: 2_000, rateLimit: { calls: 1, periodMs: 1_000 }, maxIdenticalCalls: 4 },
      { tool: 'refund', priceMicros: null, rateLimit: null, maxIdenticalCalls: 0 },
    ]);
    // The tool's own command-line option is more specific than the console's `*`.
    expect(controls.priceMicros('charge')).toBe(10_000);
    expect(controls.rateLimit('charge')).toEqual({ calls: 5, periodMs: 60_000 });
    // The console's `*` before the gateway's defaults; a value the tool's control leaves blank falls through.
    expect(controls.priceMicros('refund')).toBe(2_000);
    expect(controls.rateLimit('refund')).toEqual({ calls: 1, periodMs: 1_000 });
    expect([controls.maxIdenticalCalls('refund'), controls.maxIdenticalCalls('charge')]).toEqual([0, 4]);
    // Replaced whole: the console's controls gone, the gateway's own options again.
    controls.replaceConsoleControls([
      { tool: 'charge', priceMicros: 50_000, rateLimit: null, maxIdenticalCalls: null },
    ]);
    expect([
      controls.priceMicros('charge'),
      controls.priceMicros('refund'),
      controls.maxIdenticalCalls('refund'),
    ]).toEqual([50_000, 1_000, 25]);
  });

  it('reads a rate for all agents, a spend limit and a price per unit, each for a tool or *, and names a bad one', () => {
    const controls = new ToolControls(
      parse([
        '--tool-rate-limit',
        'charge=100/h',
        '--tool-rate-limit',
        '*=1000/h',
        '--spend-limit',
        'search=0.50/h',
        '--spend-limit',
        '*=2/m',
        '--tool-unit-price',
        'send_sms=0.0079:segments',
      ]),
    );
    expect([controls.toolRateLimit('charge'), controls.toolRateLimit('refund')]).toEqual([
      { calls: 100, periodMs: 3_600_000 },
      { calls: 1_000, periodMs: 3_600_000 },
    ]);
    expect([controls.spendLimit('search'), controls.spendLimit('charge')]).toEqual([
      { micros: 500_000, periodMs: 3_600_000 },
      { micros: 2_000_000, periodMs: 60_000 },
    ]);
    expect([controls.unitPrice('send_sms'), controls.unitPrice('charge')]).toEqual([
      { micros: 7_900, field: 'segments' },
      undefined,
    ]);
    for (const [args, message] of [
      [['--spend-limit', 'search=0.50'], /--spend-limit search must be USD\/m or USD\/h above 0/],
      [['--spend-limit', 'search=0/h'], /above 0/],
      [['--spend-limit', 'search=1/s'], /USD\/m or USD\/h/],
      [['--tool-unit-price', 'send_sms=0.0079'], /must end :FIELD/],
      [['--tool-unit-price', 'send_sms=lots:segments'], /US dollars from 0 to 1000/],
      [['--tool-rate-limit', 'charge=fast'], /--tool-rate-limit charge must be N\/s, N\/m or N\/h/],
      [['--tool-rate-limit', 'charge=1/h', '--tool-rate-limit', 'charge=2/h'], /names charge twice/],
    ] as const) {
      expect(() => parse([...args])).toThrow(message);
    }
  });
});
