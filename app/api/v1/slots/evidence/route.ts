import { endpoints } from '@holdfast/protocol/api/endpoints';
import { recordEvidence } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.recordEvidence, async (ctx, input) => {
  await recordEvidence(ctx, input);
  return { status: 200, body: { ok: true } };
});
