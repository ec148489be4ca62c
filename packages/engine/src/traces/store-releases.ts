import { sql } from 'drizzle-orm';
import { holdOwner } from '@holdfast/protocol/inputs/hold-input';
import { cutToLength } from '@holdfast/protocol/validation';
import type { Executor } from '../db/client';
import { textAttribute } from './attribute-values';
import type { ExportedSpan } from './exported-span';

/** The resource attribute an exporter names its agent's owner with (`team:<name>` or `person:<email>`). */
export const OWNER_RESOURCE_ATTRIBUTE = 'holdfast.owner';
/** Versions kept per agent: the most recently seen; an agent that names a new version on every start stays bounded. */
export const MAX_RELEASES_PER_AGENT = 200;
const MAX_VERSION = 128;
const MAX_REFUSED_OWNER = 200;
/** A version seen again is written at most this often: concurrent exporters of one agent do not queue on its row. */
const LAST_SEEN_RESOLUTION = '1 minute';

/** What a span's resource says about its agent: its version and its owner (or why that owner was not taken). */
export interface AgentRelease {
  agent: string;
  version: string;
  owner: string | null;
  refusedOwner: string | null;
}

/** The release a span of an accepted call or run speaks for. */
export function releaseOf(agent: string, span: ExportedSpan): AgentRelease {
  const version = cutToLength(textAttribute(span.resource, 'service.version') ?? '', MAX_VERSION);
  const declared = textAttribute(span.resource, OWNER_RESOURCE_ATTRIBUTE);
  const owner = declared === undefined ? undefined : holdOwner.safeParse(declared);
  return {
    agent,
    version,
    owner: owner?.success ? owner.data : null,
    refusedOwner: owner && !owner.success ? cutToLength(declared!, MAX_REFUSED_OWNER) : null,
  };
}

/** A batch's releases, one per agent and version (the last span's word on the owner). */
export class ReleasesSeen {
  private readonly seen = new Map<string, AgentRelease>();

  add(agent: string, span: ExportedSpan): void {
    const release = releaseOf(agent, span);
    this.seen.set(`${release.agent}\u0000${release.version}`, release);
  }

  list(): AgentRelease[] {
    return [...this.seen.values()];
  }
}

/**
 * Records the batch's releases in one statement: a new version with its first sighting, a known one's last sighting
 * (at most once a minute) and its owner when that changed. When a version was new, each such agent keeps only its
 * MAX_RELEASES_PER_AGENT most recently seen.
 */
export async function storeReleases(db: Executor, releases: readonly AgentRelease[], now: Date): Promise<void> {
  if (releases.length === 0) return;
  const at = now.toISOString();
  const rows = JSON.stringify(
    releases.map((release) => ({
      agent: release.agent,
      version: release.version,
      owner: release.owner,
      refused_owner: release.refusedOwner,
    })),
  );
  const added = await db.execute<{ agent: string; inserted: boolean }>(sql`
    insert into agent_releases as kept (agent, version, owner, refused_owner, first_seen_at, last_seen_at)
    select r.agent, r.version, r.owner, r.refused_owner, ${at}::timestamptz, ${at}::timestamptz
    from jsonb_to_recordset(${rows}::jsonb) as r(agent text, version text, owner text, refused_owner text)
    on conflict (agent, version) do update
      set owner = excluded.owner, refused_owner = excluded.refused_owner,
        last_seen_at = greatest(kept.last_seen_at, excluded.last_seen_at)
      where kept.owner is distinct from excluded.owner
        or kept.refused_owner is distinct from excluded.refused_owner
        or kept.last_seen_at < excluded.last_seen_at - ${LAST_SEEN_RESOLUTION}::interval
    returning agent, (xmax = 0) as inserted`);
  const grown = [...new Set(added.filter((row) => row.inserted).map((row) => row.agent))];
  if (grown.length === 0) return;
  await db.execute(sql`
    delete from agent_releases old
    using (
      select agent, version,
        row_number() over (partition by agent order by last_seen_at desc, first_seen_at desc) as place
      from agent_releases where agent in (select jsonb_array_elements_text(${JSON.stringify(grown)}::jsonb))
    ) ranked
    where old.agent = ranked.agent and old.version = ranked.version and ranked.place > ${MAX_RELEASES_PER_AGENT}`);
}
