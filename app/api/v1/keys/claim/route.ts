import { endpoints } from '@holdfast/protocol/api/endpoints';
import { claimKey } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

/** Claim a key. In progress elsewhere: try later (Retry-After). Uncertain or a payload mismatch: stop. */
export const POST = agentEndpoint(endpoints.claimKey, async (ctx, input) => {
  const claim = await claimKey(ctx, input);
  switch (claim.outcome) {
    case 'acquired':
    case 'replay':
      return { status: 200, body: claim };
    case 'in_progress': {
      const retryAfterSeconds = Math.max(1, Math.ceil(claim.retryAfterMs / 1_000));
      return {
        status: 409,
        body: {
          code: 'KEY_IN_PROGRESS',
          detail: `Key ${claim.key} is being worked on by another claim; try again later`,
          key: claim.key,
          retryAfterSeconds,
        },
      };
    }
    case 'uncertain':
      return {
        status: 409,
        body: {
          code: 'UNCERTAIN_OUTCOME',
          detail: `Key ${claim.key} was started at ${claim.intentAt.toISOString()} and never reported back, and its downstream cannot deduplicate: do not retry; a person must check whether the side effect happened`,
          key: claim.key,
        },
      };
  }
});
