import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Actor, createApiToken, readStepOwners, saveStepOwner } from '../../../packages/engine/src/core';
import { MAX_RELEASES_PER_AGENT, storeReleases } from '../../../packages/engine/src/traces/store-releases';
import { getFleetEvents, getStepEvents } from '../../../lib/queries/step-events';
import { getRefusedOwnerDeclaration } from '../../../lib/queries/step-owners';
import { useApi } from '../../support/api-harness';
import { otlpJsonExport, otlpJsonSpan } from '../../support/otlp-json';

/**
 * What a traced agent's resource says about it: `holdfast.owner` is what the agent declares (an admin's owner
 * still wins), and a new `service.version` is a deploy-like event on its step's charts and the Overview's. Only
 * for agents the exporter may write for; an owner that names no team or person is kept as refused, not taken.
 */
const api = useApi();
const admin: Actor = { type: 'person', id: 'ada@example.com', role: 'admin', teams: [] };
let tracesToken = '';
let limitedToken = '';

beforeAll(async () => {
  const ctx = { db: api.database.db, actor: admin };
  tracesToken = (await createApiToken(ctx, { name: 'releases', scopes: ['traces'] })).token;
  limitedToken = (
    await createApiToken(ctx, { name: 'one agent', scopes: ['traces'], allowedAgents: ['releases-allowed'] })
  ).token;
});

const name = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** One model call of `agent`'s step `draft`, exported with the given resource attributes. */
async function exportCall(agent: string, resource: Record<string, string>, token = tracesToken) {
  const span = otlpJsonSpan('chat gpt-4o', {
    'gen_ai.operation.name': 'chat',
    'holdfast.step': 'draft',
    'holdfast.task': name('task'),
  });
  return api.request('/v1/traces', { body: otlpJsonExport(agent, [span], resource), token });
}

async function releasesOf(agent: string) {
  return api.database.sql<{ version: string; owner: string | null; refused_owner: string | null }[]>`
    select version, owner, refused_owner from agent_releases where agent = ${agent} order by first_seen_at, version`;
}

const lastHour = () => ({ from: new Date(Date.now() - 60 * 60_000), to: new Date(Date.now() + 60_000) });

describe('what a traced agent declares in its resource', () => {
  it("holdfast.owner is the agent's declared owner, shown for each of its steps until an admin names another", async () => {
    const agent = name('traced');
    expect((await exportCall(agent, { 'holdfast.owner': 'team:research', 'service.version': '1.4.0' })).status).toBe(
      200,
    );
    const declared = (await readStepOwners(api.database.db, [{ agent, step: 'draft' }])).get(`${agent}/draft`);
    expect(declared).toMatchObject({ owner: 'team:research', source: 'declared', declared: 'team:research' });

    await saveStepOwner(
      { db: api.database.db, actor: admin },
      { agent, step: '*', owner: 'team:platform', reason: 'research hands it over' },
    );
    const chosen = (await readStepOwners(api.database.db, [{ agent, step: 'draft' }])).get(`${agent}/draft`);
    expect(chosen).toMatchObject({ owner: 'team:platform', source: 'agent', declared: 'team:research' });
  });

  it('an owner that names no team or person is kept as refused and declares nothing', async () => {
    const agent = name('traced');
    await exportCall(agent, { 'holdfast.owner': 'research folks' });
    expect(await releasesOf(agent)).toEqual([{ version: '', owner: null, refused_owner: 'research folks' }]);
    const owner = (await readStepOwners(api.database.db, [{ agent, step: 'draft' }])).get(`${agent}/draft`);
    expect(owner).toMatchObject({ owner: null, source: null });
    // The agent's page says why it was not taken, until the spans declare an owner that names one.
    expect(await getRefusedOwnerDeclaration(api.database.db, agent)).toBe('research folks');
    await api.database
      .sql`update agent_releases set last_seen_at = last_seen_at - interval '1 hour' where agent = ${agent}`;
    await exportCall(agent, { 'holdfast.owner': 'team:research', 'service.version': '2' });
    expect(await getRefusedOwnerDeclaration(api.database.db, agent)).toBeNull();
  });

  it("an exporter limited to one agent declares nothing for another: that agent's spans are refused whole", async () => {
    const other = name('releases-other');
    const answer = await exportCall(
      other,
      { 'holdfast.owner': 'team:attackers', 'service.version': '9' },
      limitedToken,
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ partialSuccess: { rejectedSpans: '1' } });
    expect(await releasesOf(other)).toEqual([]);
  });

  it('a new version is a deploy on the step and the Overview; the first version and a version seen again are not', async () => {
    const agent = name('traced');
    await exportCall(agent, { 'service.version': '1.0.0' });
    await exportCall(agent, { 'service.version': '1.1.0' });
    await exportCall(agent, { 'service.version': '1.1.0' });
    expect((await releasesOf(agent)).map((release) => release.version)).toEqual(['1.0.0', '1.1.0']);

    const onStep = await getStepEvents(api.database.db, { agent, step: 'draft' }, lastHour());
    expect(onStep.filter((event) => event.kind === 'deployed').map((event) => event.detail)).toEqual(['version 1.1.0']);
    const onFleet = (await getFleetEvents(api.database.db, lastHour())).filter((event) => event.subject === agent);
    expect(onFleet.map((event) => [event.kind, event.detail])).toEqual([['deployed', 'version 1.1.0']]);
  });

  it(`keeps each agent's ${MAX_RELEASES_PER_AGENT} most recently seen versions`, async () => {
    const agent = name('restless');
    const seen = (version: number) => new Date(Date.UTC(2026, 0, 1, 0, version));
    for (let version = 0; version < MAX_RELEASES_PER_AGENT + 5; version += 1)
      await storeReleases(
        api.database.db,
        [{ agent, version: `v${version}`, owner: null, refusedOwner: null }],
        seen(version),
      );
    const kept = await releasesOf(agent);
    expect(kept).toHaveLength(MAX_RELEASES_PER_AGENT);
    expect(kept[0]!.version).toBe('v5');
    expect(kept.at(-1)!.version).toBe(`v${MAX_RELEASES_PER_AGENT + 4}`);
  });
});
