import { endpoints } from '@holdfast/protocol/api/endpoints';
import { deadLetterTask } from '@holdfast/engine/core';
import { agentEndpoint } from '@/lib/server/agent-endpoint';

export const dynamic = 'force-dynamic';

export const POST = agentEndpoint(endpoints.deadLetter, async (ctx, input) => {
  const { deadLetter, hold } = await deadLetterTask(ctx.db, ctx.actor, input);
  // The nonce an edited redrive's task id ends with stays Holdfast's: it is what keeps that id from being guessed.
  const { editNonce: _kept, ...letter } = deadLetter;
  return { status: 201, body: { deadLetter: letter, hold } };
});
