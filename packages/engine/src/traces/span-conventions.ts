import { numberAttribute, textAttribute } from './attribute-values';
import type { ExportedSpan } from './exported-span';

/**
 * What a span says about the call it records, in whichever convention its emitter writes (the recorded spans of
 * each are in tests/fixtures/otel-emitters):
 *
 * | fact       | OpenTelemetry GenAI (`gen_ai.*`)                  | OpenInference                           | AI SDK 5 and 6 (`ai.*`)                   |
 * | ---------- | ------------------------------------------------- | --------------------------------------- | ----------------------------------------- |
 * | operation  | `gen_ai.operation.name`                           | `openinference.span.kind` LLM, EMBEDDING, TOOL | `ai.operationId` `*.doGenerate`, `*.doStream`, `*.doEmbed`, `ai.toolCall` |
 * | model      | `gen_ai.response.model`, else `gen_ai.request.model` | `llm.model_name`                      | `ai.response.model`, else `ai.model.id`   |
 * | provider   | `gen_ai.provider.name`, else `gen_ai.system`      | `llm.provider`, else `llm.system`       | `ai.model.provider` (`openai.chat`: `openai`) |
 * | tokens     | `gen_ai.usage.input_tokens`, `output_tokens`      | `llm.token_count.prompt`, `completion`  | `ai.usage.inputTokens`, `outputTokens` (5: `promptTokens`, `completionTokens`) |
 * | cache read | `gen_ai.usage.cache_read.input_tokens`            | `llm.token_count.prompt_details.cache_read` | `ai.usage.cachedInputTokens`          |
 * | tool       | `gen_ai.tool.name`, `gen_ai.tool.call.id`         | `tool.name`                             | `ai.toolCall.name`, `ai.toolCall.id`      |
 *
 * GenAI attributes win where a span carries both (the AI SDK 6 writes some `gen_ai.*` beside its own). Input
 * tokens include cache reads in all three, as OpenAI's `prompt_tokens` do. Runs (an OpenInference AGENT or
 * CHAIN, an AI SDK `ai.generateText`) are not calls: they state the totals of the calls under them.
 */
export interface CallFacts {
  operation?: string;
  /** The model that answered, else the one asked for: what the call is priced as. */
  model?: string;
  /** The model asked for, else the one that answered: what model budgets count it under (a budget names the model
   * an agent asks for, `gpt-4o-mini`, not the dated one that answers, `gpt-4o-mini-2024-07-18`). */
  requestedModel?: string;
  provider?: string;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheCreationInputTokens?: number;
  toolName?: string;
  toolCallId?: string;
}

const OPENINFERENCE_OPERATIONS: Record<string, string> = { LLM: 'chat', EMBEDDING: 'embeddings', TOOL: 'execute_tool' };

export function callFactsOf(span: ExportedSpan): CallFacts {
  const text = (key: string) => textAttribute(span.attributes, key);
  const count = (key: string) => {
    const value = numberAttribute(span.attributes, key);
    return value !== undefined && value >= 0 ? value : undefined;
  };
  const genAi: CallFacts = {
    operation: text('gen_ai.operation.name'),
    model: text('gen_ai.response.model') ?? text('gen_ai.request.model'),
    requestedModel: text('gen_ai.request.model') ?? text('gen_ai.response.model'),
    provider: text('gen_ai.provider.name') ?? text('gen_ai.system'),
    inputTokens: count('gen_ai.usage.input_tokens'),
    outputTokens: count('gen_ai.usage.output_tokens'),
    cacheReadInputTokens: count('gen_ai.usage.cache_read.input_tokens'),
    cacheCreationInputTokens: count('gen_ai.usage.cache_creation.input_tokens'),
    toolName: text('gen_ai.tool.name'),
    toolCallId: text('gen_ai.tool.call.id'),
  };
  const other = openInferenceFacts(span, text, count) ?? aiSdkFacts(text, count) ?? {};
  const facts: CallFacts = { ...other };
  for (const [key, value] of Object.entries(genAi))
    if (value !== undefined) facts[key as keyof CallFacts] = value as never;
  // A provider named with its API (`openai.chat`, `anthropic.messages`) is priced as the provider.
  if (facts.provider) facts.provider = facts.provider.split('.')[0];
  return facts;
}

function openInferenceFacts(
  span: ExportedSpan,
  text: (key: string) => string | undefined,
  count: (key: string) => number | undefined,
): CallFacts | undefined {
  const kind = text('openinference.span.kind')?.toUpperCase();
  const operation = kind ? OPENINFERENCE_OPERATIONS[kind] : undefined;
  if (!operation) return undefined;
  return {
    operation,
    model: text('llm.model_name'),
    requestedModel: text('llm.model_name'),
    provider: text('llm.provider') ?? text('llm.system'),
    inputTokens: count('llm.token_count.prompt'),
    outputTokens: count('llm.token_count.completion'),
    cacheReadInputTokens: count('llm.token_count.prompt_details.cache_read'),
    cacheCreationInputTokens: count('llm.token_count.prompt_details.cache_write'),
    toolName: operation === 'execute_tool' ? (text('tool.name') ?? span.name) : undefined,
  };
}

function aiSdkFacts(
  text: (key: string) => string | undefined,
  count: (key: string) => number | undefined,
): CallFacts | undefined {
  const id = text('ai.operationId');
  if (!id) return undefined;
  const operation = /\.(doGenerate|doStream)$/.test(id)
    ? 'chat'
    : id.endsWith('.doEmbed')
      ? 'embeddings'
      : id === 'ai.toolCall'
        ? 'execute_tool'
        : undefined;
  if (!operation) return undefined;
  return {
    operation,
    model: text('ai.response.model') ?? text('ai.model.id'),
    requestedModel: text('ai.model.id') ?? text('ai.response.model'),
    provider: text('ai.model.provider'),
    inputTokens: count('ai.usage.inputTokens') ?? count('ai.usage.promptTokens'),
    outputTokens: count('ai.usage.outputTokens') ?? count('ai.usage.completionTokens'),
    cacheReadInputTokens: count('ai.usage.cachedInputTokens') ?? count('ai.usage.inputTokenDetails.cacheReadTokens'),
    toolName: text('ai.toolCall.name'),
    toolCallId: text('ai.toolCall.id'),
  };
}

/**
 * An agent's run, in whichever convention its emitter writes: the GenAI `invoke_agent`, an OpenInference AGENT or
 * CHAIN, an AI SDK 5/6 `ai.generateText`, `ai.streamText`, `ai.generateObject` or `ai.streamObject` (the call that
 * may make several model calls, each its own `doGenerate`/`doStream` span), an OpenLLMetry workflow or agent. A run
 * is not a call: it states the totals of the calls under it, and its failure is theirs (span-runs.ts).
 */
export function runConventionOf(span: ExportedSpan): string | undefined {
  const text = (key: string) => textAttribute(span.attributes, key);
  if (text('gen_ai.operation.name') === 'invoke_agent') return 'invoke_agent';
  const openInference = text('openinference.span.kind')?.toUpperCase();
  if (openInference === 'AGENT' || openInference === 'CHAIN') return `openinference.${openInference.toLowerCase()}`;
  const aiSdk = text('ai.operationId');
  if (aiSdk && AI_SDK_RUNS.has(aiSdk)) return aiSdk;
  const traceloop = text('traceloop.span.kind');
  if (traceloop === 'workflow' || traceloop === 'agent') return `traceloop.${traceloop}`;
  return undefined;
}

const AI_SDK_RUNS: ReadonlySet<string> = new Set([
  'ai.generateText',
  'ai.streamText',
  'ai.generateObject',
  'ai.streamObject',
]);

/** The attribute prefixes of the conventions a model, tool or agent call is written in: a span with one looks like a call. */
export const CALL_ATTRIBUTE_PREFIXES = ['gen_ai.', 'llm.', 'ai.', 'traceloop.', 'openinference.', 'holdfast.'] as const;
