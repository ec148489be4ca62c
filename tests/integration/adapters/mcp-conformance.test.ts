import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, serveGateway } from '../../../packages/client/src/adapters/mcp/serve';
import { type BearerProxy, startBearerProxy } from '../../support/conformance/bearer-proxy';
import { type ConformanceFixture, startConformanceFixture } from '../../support/conformance/fixture-http';
import { runConformanceSuite, type ScenarioOutcome } from '../../support/conformance/run-suite';
import { useTestDatabase } from '../../support/test-database';
import { useGatewayHoldfast } from '../../support/mcp-gateway-holdfast';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, its server scenarios) against a
 * fixture server that implements the suite's test tools, resources and prompts (tests/support/conformance), run
 * directly and through the gateway in front of it over Streamable HTTP and over stdio. The outcome of every scenario
 * is kept in tests/fixtures/mcp-conformance/baseline.json; through the gateway each must equal the direct one.
 * HOLDFAST_CONFORMANCE_WRITE=1 writes the baseline from this run instead of comparing.
 */
const database = useTestDatabase();
const OWNER = 'team:conformance';
const base = useGatewayHoldfast(database, OWNER, ['conformance-http', 'conformance-stdio']);
const BASELINE = path.join(import.meta.dirname, '../../fixtures/mcp-conformance/baseline.json');
const FIXTURE_STDIO = path.join(import.meta.dirname, '../../support/conformance/fixture-stdio.ts');
let fixture: ConformanceFixture;
const gateways: RunningGateway[] = [];
const proxies: BearerProxy[] = [];

beforeAll(async () => {
  fixture = await startConformanceFixture();
});

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await fixture?.close();
});

/**
 * A listening gateway for `agent`'s client in front of the fixture (`upstream`: its options), reached through a
 * proxy that adds the client's secret.
 */
async function throughGateway(agent: string, serverName: string, upstream: string[]) {
  const gateway = await serveGateway(base.options(serverName, ['--max-wait-ms', '2000', ...upstream]), {
    log: () => {},
  });
  gateways.push(gateway);
  const proxy = await startBearerProxy(gateway.url!, base.clientOf(agent).secret);
  proxies.push(proxy);
  return proxy.url;
}

describe('the MCP conformance suite', () => {
  it('gives the same outcome, scenario by scenario, directly and through the gateway over both transports', async () => {
    const outcomes: Record<string, Record<string, ScenarioOutcome>> = {
      direct: await runConformanceSuite(fixture.url),
      'gateway-http': await runConformanceSuite(
        await throughGateway('conformance-http', 'conf-http', ['--upstream-url', fixture.url]),
      ),
      'gateway-stdio': await runConformanceSuite(
        await throughGateway('conformance-stdio', 'conf-stdio', [
          '--',
          process.execPath,
          '--import',
          'tsx',
          FIXTURE_STDIO,
        ]),
      ),
    };
    if (process.env.HOLDFAST_CONFORMANCE_WRITE === '1')
      writeFileSync(BASELINE, `${JSON.stringify(outcomes, null, 2)}\n`);
    const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as typeof outcomes;
    expect(outcomes).toEqual(baseline);
    // Every scenario the suite ran directly ran through the gateway too, with the same outcome.
    expect(Object.keys(outcomes.direct!).length).toBeGreaterThanOrEqual(30);
    expect(outcomes['gateway-http']).toEqual(outcomes.direct);
    expect(outcomes['gateway-stdio']).toEqual(outcomes.direct);
    // And the gateway did its work on the way: the suite's tool calls are Holdfast steps of each client's agent.
    const steps = await database.sql<{ agent: string; step: string }[]>`
      select distinct agent, step from attempts where agent like 'conformance-%' order by agent, step`;
    for (const [agent, server] of [
      ['conformance-http', 'conf-http'],
      ['conformance-stdio', 'conf-stdio'],
    ]) {
      const ofAgent = steps.filter((row) => row.agent === agent).map((row) => row.step);
      expect(ofAgent).toEqual(expect.arrayContaining([`${server}:test_simple_text`, `${server}:test_sampling`]));
    }
  }, 600_000);
});
