import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const projectRoot = path.resolve(import.meta.dirname, '../..');
/** The gateway's command, as the repository runs it. */
export const GATEWAY_COMMAND = [
  process.execPath,
  '--import',
  'tsx',
  'packages/client/src/adapters/mcp/cli.ts',
] as const;
/** The secret that seals the gateway's task ids in tests (HOLDFAST_MCP_KEY_SECRET): every gateway of a suite shares it. */
export const TEST_KEY_SECRET = 'test-key-secret-0123456789abcdef0123456789';

/** A client of a listening gateway: its name, its agent, and the secret it proves itself with. */
export interface TestClient {
  name: string;
  agent: string;
  secret: string;
}

/** A client for `agent` with a secret of its own (long enough for the gateway's rule). */
export function testClient(agent: string, name = `${agent}-client`): TestClient {
  return { name, agent, secret: `secret-of-${name}-${createHash('sha256').update(name).digest('hex').slice(0, 32)}` };
}

/**
 * Writes a gateway's --clients file for these clients: the first half give
 * their secret's SHA-256, the rest the environment variable that holds it
 * (answered in `env`, for the gateway's process), so both forms are used.
 */
export function writeClientsFile(
  file: string,
  clients: readonly TestClient[],
): { file: string; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const entries = clients.map((client, index) => {
    if (index < clients.length / 2) {
      return {
        name: client.name,
        agent: client.agent,
        secretSha256: createHash('sha256').update(client.secret).digest('hex'),
      };
    }
    const variable = `MCP_TEST_SECRET_${index}`;
    env[variable] = client.secret;
    return { name: client.name, agent: client.agent, secretEnv: variable };
  });
  writeFileSync(file, JSON.stringify({ clients: entries }, null, 2));
  return { file, env };
}

export interface GatewayProcess {
  process: ChildProcess;
  /** Its Streamable HTTP endpoint. */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The gateway's CLI as a child process serving Streamable HTTP on 127.0.0.1
 * (any free port); resolves once it says where it serves. `env` adds to its
 * environment (the variables its clients file names).
 */
export async function startGatewayProcess(
  args: string[],
  token: string,
  env: Record<string, string> = {},
): Promise<GatewayProcess> {
  const child = spawn(GATEWAY_COMMAND[0], [...GATEWAY_COMMAND.slice(1), '--listen', '127.0.0.1:0', ...args], {
    cwd: projectRoot,
    env: { ...process.env, HOLDFAST_TOKEN: token, HOLDFAST_MCP_KEY_SECRET: TEST_KEY_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start in 60 s:\n${output}`)), 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /serving (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited before it served:\n${output}`));
    });
  });
  return {
    process: child,
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * An MCP client (the SDK's) that calls itself `name` in its initialize,
 * connected to a gateway over Streamable HTTP with `secret` as its bearer
 * credential (none when absent).
 */
export async function connectHttpClient(url: string, name: string, secret?: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const headers: Record<string, string> = secret === undefined ? {} : { authorization: `Bearer ${secret}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/**
 * An MCP client named `name` that starts the gateway itself over stdio, as a
 * desktop client does from its configuration. `transport.pid` is the gateway's.
 */
export async function connectStdioClient(
  name: string,
  args: string[],
  token: string,
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: GATEWAY_COMMAND[0],
    args: [...GATEWAY_COMMAND.slice(1), ...args],
    cwd: projectRoot,
    env: {
      ...(process.env as Record<string, string>),
      HOLDFAST_TOKEN: token,
      HOLDFAST_MCP_KEY_SECRET: TEST_KEY_SECRET,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}
