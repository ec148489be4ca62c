import { textAttribute } from './attribute-values';
import type { ExportedSpan } from './exported-span';

/**
 * Spans that are a model or tool call under a convention Holdfast does not count yet: OpenInference's
 * (`openinference.span.kind` LLM, EMBEDDING or TOOL, with `llm.*` attributes) and the AI SDK's own telemetry
 * before it wrote `gen_ai.operation.name` (AI SDK 5 and 6: `ai.operationId` of a model call's `doGenerate`,
 * `doStream` or `doEmbed`, or `ai.toolCall`). Such a span is not dropped in silence: it is rejected, and the
 * exporter's answer says why (partial_success), so whoever points an exporter at Holdfast and sees nothing is
 * told. Runs (an OpenInference AGENT or CHAIN, an AI SDK `ai.generateText`) are not calls, and pass unsaid.
 * The recorded spans of both are in tests/fixtures/otel-emitters.
 */
const OPENINFERENCE_CALL_KINDS = new Set(['LLM', 'EMBEDDING', 'TOOL']);
const AI_SDK_CALL = /\.(doGenerate|doStream|doEmbed)$|^ai\.toolCall$/;

/** Why a span no rule counted is a call Holdfast cannot count yet, or undefined for any other span. */
export function uncountedCallReason(span: ExportedSpan): string | undefined {
  const kind = textAttribute(span.attributes, 'openinference.span.kind');
  if (kind && OPENINFERENCE_CALL_KINDS.has(kind.toUpperCase()))
    return `an OpenInference ${kind.toUpperCase()} span: Holdfast counts OpenTelemetry GenAI spans (gen_ai.*), not OpenInference's llm.* attributes yet; see docs/agents/opentelemetry.md`;
  const operationId = textAttribute(span.attributes, 'ai.operationId');
  if (operationId && AI_SDK_CALL.test(operationId))
    return `an AI SDK ${operationId} span without gen_ai.operation.name (AI SDK 5 and 6): Holdfast counts OpenTelemetry GenAI spans; use @ai-sdk/otel (AI SDK 7) or see docs/agents/opentelemetry.md`;
  return undefined;
}
