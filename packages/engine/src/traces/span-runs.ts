import { unstorableTextProblem } from '@holdfast/protocol/well-formed-text';
import { textAttribute } from './attribute-values';
import type { ExportedSpan } from './exported-span';
import { runConventionOf } from './span-conventions';
import { agentOfSpan, errorTextOf, plainName } from './span-to-attempt';

const NANOS_PER_MS = 1_000_000n;

/**
 * An agent's run (span-conventions.ts, runConventionOf): kept apart from the attempts, as a run of its agent. The
 * calls under it are the attempts, with their own costs and failures; a run's failure is theirs (an AI SDK run
 * that failed after its call failed is one failure, the call's), so a run has no cost, class or step.
 */
export interface AgentRun {
  traceId: string;
  spanId: string;
  agent: string;
  name: string;
  convention: string;
  startedAtMs: number;
  finishedAtMs: number;
  outcome: 'succeeded' | 'failed';
  errorText: string | null;
}

export type RunMapping = { run: AgentRun } | { refused: string } | undefined;

/** The span as a run, the reason it cannot be one, or undefined when it is no run (or states a step: a step). */
export function spanToRun(span: ExportedSpan): RunMapping {
  if (textAttribute(span.attributes, 'holdfast.step')) return undefined;
  const convention = runConventionOf(span);
  if (!convention) return undefined;
  const agent = agentOfSpan(span);
  if (!agent) return { refused: 'a run with no agent: set gen_ai.agent.name or the service.name resource' };
  if (span.endNanos < span.startNanos) return { refused: 'the span ends before it starts' };
  const failed = span.statusCode === 2;
  const errorText = failed ? errorTextOf(span) : null;
  const unstorable = errorText === null ? undefined : unstorableTextProblem(errorText);
  return {
    run: {
      traceId: span.traceId,
      spanId: span.spanId,
      agent,
      name: plainName(span.name) ?? convention,
      convention,
      startedAtMs: Number(span.startNanos / NANOS_PER_MS),
      finishedAtMs: Number(span.endNanos / NANOS_PER_MS),
      outcome: failed ? 'failed' : 'succeeded',
      // A text that cannot be stored is not a reason to lose the run: it is kept without it.
      errorText: unstorable ? 'the error text could not be stored' : errorText,
    },
  };
}
