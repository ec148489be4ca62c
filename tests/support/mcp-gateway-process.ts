import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const projectRoot = path.resolve(import.meta.dirname, '../..');
/** The gateway's command, as the repository runs it. */
export const GATEWAY_COMMAND = [process.execPath, '--import', 'tsx', 'lib/adapters/mcp/cli.ts'] as const;

export interface GatewayProcess {
  process: ChildProcess;
  /** Its Streamable HTTP endpoint. */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The gateway's CLI as a child process serving Streamable HTTP on 127.0.0.1
 * (any free port); resolves once it says where it serves.
 */
export async function startGatewayProcess(args: string[], token: string): Promise<GatewayProcess> {
  const child = spawn(GATEWAY_COMMAND[0], [...GATEWAY_COMMAND.slice(1), '--listen', '127.0.0.1:0', ...args], {
    cwd: projectRoot,
    env: { ...process.env, HOLDFAST_TOKEN: token },
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

/** An MCP client (the SDK's) named `name`, connected to a gateway over Streamable HTTP. */
export async function connectHttpClient(url: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
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
    env: { ...(process.env as Record<string, string>), HOLDFAST_TOKEN: token },
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
