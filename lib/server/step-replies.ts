import 'server-only';
import type { BeginAnswer, FinishAnswer } from '@holdfast/protocol/steps/step-protocol';
import type { Reply } from './agent-endpoint';

/**
 * The step engine's answers over HTTP: `run`, `replay`, `completed` and
 * `retry` are 200s; a wait is a 409 problem with Retry-After (retryable), a
 * stop a 409 problem that is not retryable and names its reason and the hold
 * or dead letter a person acts on.
 */
export function replyForStepAnswer(answer: BeginAnswer | FinishAnswer): Reply {
  switch (answer.decision) {
    case 'wait':
      return {
        status: 409,
        body: {
          code: answer.code,
          detail: answer.detail,
          decision: 'wait',
          retryAfterMs: answer.retryAfterMs,
          retryAfterSeconds: Math.max(1, Math.ceil(answer.retryAfterMs / 1_000)),
          ...(answer.pause ? { pause: answer.pause } : {}),
          ...(answer.breaker ? { breaker: answer.breaker } : {}),
          ...(answer.budget ? { budget: answer.budget } : {}),
        },
      };
    case 'stop':
      return { status: 409, body: { ...answer, code: answer.code, detail: answer.detail } };
    default:
      return { status: 200, body: answer };
  }
}
