import type { ErrorClass } from '@holdfast/protocol/enums';
import { budgetModelOf } from '@holdfast/protocol/inputs/spend-budget-input';
import { NAME_MAX_LENGTH } from '@holdfast/protocol/names';
import { MAX_ATTEMPT_COST_MICROS } from '@holdfast/protocol/money-limits';
import type { CostSource, PricedCost } from '../core/pricing/price-call';
import { unstorableTextProblem } from '@holdfast/protocol/well-formed-text';
import { numberAttribute, textAttribute } from './attribute-values';
import { classifySpanError, httpStatusOf } from './error-class-rules';
import type { SpanMappingRules } from './mapping-rules';
import type { ExportedSpan } from './otlp-request';
import { priceSpanCall } from './price-memo';
import { callFactsOf, runConventionOf } from './span-conventions';

/**
 * How a span becomes an attempt (docs/agents/opentelemetry.md has the table):
 *
 * - it counts if its operation is one of the counted operations, or it names
 *   its step itself (`holdfast.step`); the operation, model, tokens and tool
 *   are read in the OpenTelemetry GenAI conventions, OpenInference's or the AI
 *   SDK 5 and 6's (span-conventions.ts);
 * - agent: `holdfast.agent`, else `gen_ai.agent.name`, else the resource's
 *   `service.name`; step: `holdfast.step`, else `gen_ai.tool.name` for a tool
 *   call, else the span's name; both made plain names (other characters
 *   become `_`);
 * - task: `holdfast.task` if stated; else one execution of the step, named by
 *   the conversation (`gen_ai.conversation.id`, else the trace), the parent
 *   span and the tool call id, so that sibling spans of one parent for one step
 *   are one execution, and another turn of the conversation is another task;
 * - attempt number: `holdfast.attempt` if stated, else the span's place by start
 *   time among the task's spans of that step, counted afresh after each that
 *   succeeded: a call after a success is the step's next pass, not a retry
 *   (store-spans.ts);
 * - outcome and error class from the span's status, `error.type` and the HTTP
 *   status (error-class-rules.ts); cost from `gen_ai.usage.cost.amount` in USD, else
 *   its token counts priced (packages/engine/src/core/pricing/price-call.ts), with the failed-call rules;
 * - a model call with HTTP client children: each child is one try, an attempt of its own
 *   (span-to-try.ts), and the call's cost goes to its last try.
 */
export { DEFAULT_COUNTED_OPERATIONS } from './mapping-rules';

export interface SpanAttempt {
  traceId: string;
  spanId: string;
  /** Null for a root span. */
  parentSpanId: string | null;
  /** A model call (chat, text completion, content generation, embeddings): its HTTP client children are its tries. */
  modelCall: boolean;
  taskId: string;
  agent: string;
  step: string;
  statedAttempt: number | null;
  /** Epoch milliseconds. */
  startedAtMs: number;
  finishedAtMs: number;
  outcome: 'succeeded' | 'failed';
  errorClass: ErrorClass | null;
  errorText: string | null;
  costMicros: number;
  costSource: CostSource;
  /** The model asked for (CallFacts.requestedModel), lower-cased and at most 200 characters; null when none. */
  model: string | null;
}

export type SpanMapping =
  /** Not a call: its operation, if it names one (for the ingest counts: packages/engine/src/traces/ingest-tally.ts). */
  { counted: false; operation?: string } | { counted: true; attempt: SpanAttempt } | { counted: true; refused: string };

const NANOS_PER_MS = 1_000_000n;
const MAX_TASK_ID = 200;
/** The GenAI operations that call a model over HTTP, as opposed to tools and agents' turns. */
const MODEL_OPERATIONS: ReadonlySet<string> = new Set(['chat', 'text_completion', 'generate_content', 'embeddings']);

export function spanToAttempt(span: ExportedSpan, rules: SpanMappingRules): SpanMapping {
  // In whichever convention the emitter writes (span-conventions.ts).
  const facts = callFactsOf(span);
  const operation = facts.operation;
  const statedStep = textAttribute(span.attributes, 'holdfast.step');
  if (!statedStep && !(operation && rules.countedOperations.has(operation))) return { counted: false, operation };
  // An agent's run is not a call (span-runs.ts), whatever operations are counted; a step stated on it is a step.
  if (!statedStep && runConventionOf(span)) return { counted: false, operation };

  const agent = agentOfSpan(span);
  const toolName = operation === 'execute_tool' ? facts.toolName : undefined;
  const step = plainName(statedStep ?? toolName ?? span.name);
  if (!agent) return { counted: true, refused: 'no agent: set gen_ai.agent.name or the service.name resource' };
  if (!step) return { counted: true, refused: 'no step: the span has no name' };

  const statedAttempt = numberAttribute(span.attributes, 'holdfast.attempt');
  if (
    statedAttempt !== undefined &&
    !(Number.isInteger(statedAttempt) && statedAttempt >= 1 && statedAttempt <= 10_000)
  )
    return { counted: true, refused: 'holdfast.attempt must be a whole number from 1 to 10,000' };

  if (span.endNanos < span.startNanos) return { counted: true, refused: 'the span ends before it starts' };
  const startedAtMs = Number(span.startNanos / NANOS_PER_MS);
  const finishedAtMs = Number(span.endNanos / NANOS_PER_MS);

  const taskId = taskIdOf(span, facts.toolCallId);
  const unstorableTask = unstorableTextProblem(taskId);
  if (unstorableTask) return { counted: true, refused: `task id ${unstorableTask}` };
  const failed = span.statusCode === 2;
  const errorText = failed ? errorTextOf(span) : null;
  const unstorableError = errorText === null ? undefined : unstorableTextProblem(errorText);
  if (unstorableError) return { counted: true, refused: `error text ${unstorableError}` };
  const errorClass = failed ? classifySpanError(span, rules.errorClassRules) : null;
  const reported = reportedCostUsd(span);
  if (typeof reported === 'string') return { counted: true, refused: reported };
  // An agent's turn (invoke_agent) states the token totals of the model calls under it, which are attempts with
  // their own costs: priced again here they would count twice, so a turn costs nothing of its own.
  const cost: PricedCost =
    operation === 'invoke_agent'
      ? { costMicros: 0, source: 'none' }
      : priceSpanCall(
          {
            reportedUsd: reported,
            usage: {
              inputTokens: facts.inputTokens,
              outputTokens: facts.outputTokens,
              cacheReadInputTokens: facts.cacheReadInputTokens,
              cacheCreationInputTokens: facts.cacheCreationInputTokens,
            },
            model: facts.model,
            provider: facts.provider,
            failure: errorClass ? { errorClass, httpStatus: httpStatusOf(span) } : undefined,
            at: new Date(startedAtMs),
          },
          rules.pricing,
        );
  return {
    counted: true,
    attempt: {
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      modelCall: operation !== undefined && MODEL_OPERATIONS.has(operation),
      taskId,
      agent,
      step,
      statedAttempt: statedAttempt ?? null,
      startedAtMs,
      finishedAtMs,
      outcome: failed ? 'failed' : 'succeeded',
      model: facts.requestedModel === undefined ? null : budgetModelOf(facts.requestedModel),
      errorClass,
      errorText,
      costMicros: cost.costMicros,
      costSource: cost.source,
    },
  };
}

/** Whose call or run a span is: `holdfast.agent`, else `gen_ai.agent.name`, else the resource's `service.name`. */
export function agentOfSpan(span: ExportedSpan): string | undefined {
  return plainName(
    textAttribute(span.attributes, 'holdfast.agent') ??
      textAttribute(span.attributes, 'gen_ai.agent.name') ??
      textAttribute(span.resource, 'service.name'),
  );
}

/** A name under the one name rule (packages/protocol/src/names.ts): other characters become `_`. */
export function plainName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const plain = raw
    .replace(/[^A-Za-z0-9_.:-]+/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, NAME_MAX_LENGTH);
  return plain === '' ? undefined : plain;
}

function taskIdOf(span: ExportedSpan, toolCall: string | undefined): string {
  const stated = textAttribute(span.attributes, 'holdfast.task');
  if (stated) return stated.slice(0, MAX_TASK_ID);
  const conversation = textAttribute(span.attributes, 'gen_ai.conversation.id') ?? span.traceId;
  const execution = [span.parentSpanId ?? 'root', ...(toolCall ? [toolCall.slice(0, 64)] : [])].join('/');
  return `${conversation.slice(0, MAX_TASK_ID - execution.length - 1)}/${execution}`;
}

export function errorTextOf(span: ExportedSpan): string {
  const text =
    span.statusMessage.trim() ||
    span.exceptionMessages.find((message) => message.trim() !== '') ||
    textAttribute(span.attributes, 'error.type') ||
    'the span ended with an error status and no message';
  return text.slice(0, 10_000);
}

/** `gen_ai.usage.cost.amount` in USD, if the span states it; a reason to refuse the span if it cannot be used. */
function reportedCostUsd(span: ExportedSpan): number | undefined | string {
  const amount = numberAttribute(span.attributes, 'gen_ai.usage.cost.amount');
  if (amount === undefined) return undefined;
  const currency = textAttribute(span.attributes, 'gen_ai.usage.cost.currency') ?? 'USD';
  if (currency.toUpperCase() !== 'USD') return `gen_ai.usage.cost.currency ${currency} is not USD`;
  if (amount < 0 || amount * 1_000_000 > MAX_ATTEMPT_COST_MICROS)
    return `gen_ai.usage.cost.amount must be from 0 to ${MAX_ATTEMPT_COST_MICROS / 1_000_000} USD`;
  return amount;
}
