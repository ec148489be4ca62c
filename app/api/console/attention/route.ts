import { ownersOf } from '@holdfast/engine/core';
import { getAttentionCounts } from '@/lib/queries/attention';
import { consoleEndpoint } from '@/lib/server/console-endpoint';

export const dynamic = 'force-dynamic';

/** What the sidebar's counts poll: alerts firing, the person's open holds, dead letters waiting. */
export const GET = consoleEndpoint({}, ({ db, person }) => getAttentionCounts(db, ownersOf(person)));
