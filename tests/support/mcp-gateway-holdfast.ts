import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type GatewayConfig, parseGatewayArgs } from '../../packages/client/src/adapters/mcp/gateway-config';
import { issueToken } from './api-tokens';
import { demoServerEnv, type HoldfastServer, startHoldfastServer } from './holdfast-server';
import { addKnownOwners } from './known-owners';
import { TEST_KEY_SECRET, type TestClient, testClient, writeClientsFile } from './mcp-gateway-process';
import type { useTestDatabase } from './test-database';

/**
 * What every in-process gateway test needs: a running Holdfast on the test's database, an ingest token, `owner` made
 * known, and a clients file with one client per agent (its own secret). `options(server, upstream)` reads a
 * listening gateway's command line in front of `upstream` (`--upstream-url URL ...`, or `-- COMMAND` last), with
 * the token, the key secret and `env` in its environment.
 */
export function useGatewayHoldfast(
  database: ReturnType<typeof useTestDatabase>,
  owner: string,
  agents: string[],
  env: Record<string, string> = {},
) {
  const clients = agents.map((agent) => testClient(agent));
  const scratch = mkdtempSync(path.join(tmpdir(), 'holdfast-mcp-'));
  const clientsFile = writeClientsFile(path.join(scratch, 'clients.json'), clients);
  const state = { holdfast: undefined as HoldfastServer | undefined, token: '' };

  beforeAll(async () => {
    await addKnownOwners(database.db, [owner]);
    ({ token: state.token } = await issueToken(database.db, { name: 'mcp gateway test' }));
    state.holdfast = await startHoldfastServer({ env: demoServerEnv(database) });
  }, 300_000);

  afterAll(async () => {
    await state.holdfast?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  return {
    get holdfast(): HoldfastServer {
      return state.holdfast!;
    },
    clientOf: (agent: string): TestClient => clients.find((client) => client.agent === agent)!,
    options(serverName: string, upstream: string[]): GatewayConfig {
      return parseGatewayArgs(
        [
          ...['--holdfast-url', state.holdfast!.baseUrl, '--server-name', serverName, '--owner', owner],
          ...['--listen', '127.0.0.1:0', '--clients', clientsFile.file],
          ...upstream,
        ],
        { ...clientsFile.env, ...env, HOLDFAST_TOKEN: state.token, HOLDFAST_MCP_KEY_SECRET: TEST_KEY_SECRET },
      );
    },
  };
}
