import { afterAll, beforeAll } from 'vitest';
import { createHoldfastClient, type HoldfastClient } from '@holdfast/client';
import { createApiToken } from '../../packages/engine/src/core';
import { aPerson } from './actors';
import { fetchKeepingFinishAnswers, refuseRequestsOffMachine } from './agent-side-fetch';
import { demoServerEnv, type HoldfastServer, startHoldfastServer } from './holdfast-server';
import { addKnownOwners } from './known-owners';
import type { useTestDatabase } from './test-database';

export interface FinishAnswer {
  key?: string;
  decision: string;
  delayMs?: number;
  attemptNumber?: number;
}

/** What an adapter test drives: the agent's client, and what its fetch saw. */
export interface AdapterServer {
  /** The client an agent would build, on an ingest token (set once the server is up). */
  client: HoldfastClient;
  /** Every finish answer the server gave, to compare the delays slept with the delays Holdfast named. */
  finishAnswers: FinishAnswer[];
  /** Requests that tried to leave the machine (each one failed). */
  refused: string[];
}

/**
 * A live production Holdfast for a framework adapter's test, with `owner` known and an ingest token named
 * `tokenName`. Nothing may leave the machine while it runs: any request not for 127.0.0.1 fails and is counted.
 */
export function useAdapterServer(
  database: ReturnType<typeof useTestDatabase>,
  { owner, tokenName }: { owner: string; tokenName: string },
): AdapterServer {
  const harness = { finishAnswers: [] as FinishAnswer[], refused: [] as string[] } as AdapterServer;
  let server: HoldfastServer | undefined;
  let restoreFetch = () => {};
  beforeAll(async () => {
    const offMachine = refuseRequestsOffMachine();
    harness.refused = offMachine.refused;
    restoreFetch = offMachine.restore;
    await addKnownOwners(database.db, [owner]);
    const admin = aPerson('admin', 'ada@example.com');
    const { token } = await createApiToken({ db: database.db, actor: admin }, { name: tokenName, scopes: ['ingest'] });
    server = await startHoldfastServer({ env: demoServerEnv(database) });
    harness.client = createHoldfastClient({
      baseUrl: server.baseUrl,
      token,
      fetch: fetchKeepingFinishAnswers(harness.finishAnswers),
    });
  }, 300_000);
  afterAll(async () => {
    restoreFetch();
    await server?.stop();
  });
  return harness;
}
