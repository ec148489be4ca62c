import type { ExportedSpan } from './exported-span';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { type AttributeValue, attributesOf, nestedValueProblem, type OtlpKeyValue } from './attribute-values';
import { loopYielder, OTLP_LIMITS, type ReadingNotes, tooManySpans, UnreadableRequestError } from './otlp-limits';
import { readProtobufRequest } from './otlp-protobuf-reader';

export { RequestPastLimitsError, UnreadableRequestError } from './otlp-limits';
export type { ReadingNotes } from './otlp-limits';

/** The span kinds by their OTLP JSON names, for exporters that send the name instead of the number. */
const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

/**
 * An OTLP/HTTP traces request (ExportTraceServiceRequest) as Holdfast reads it,
 * from either encoding the specification allows: binary protobuf, read from its
 * wire format by otlp-protobuf-reader.ts (the answer is encoded by protobufjs with
 * the code generated from the official .proto files, shipped by
 * @opentelemetry/otlp-transformer 0.52, installed as `otlp-proto-root`), or the
 * JSON mapping, checked with zod. Both come out as the same plain spans, within
 * the limits of otlp-limits.ts.
 */
export type { ExportedSpan };

// The generated module is CommonJS; createRequire keeps it out of the bundler's way.
const requireCommonJs = createRequire(import.meta.url);
interface ProtobufMessageType {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  fromObject(object: unknown): unknown;
}
interface TraceServiceTypes {
  ExportTraceServiceRequest: ProtobufMessageType;
  ExportTraceServiceResponse: ProtobufMessageType;
}
let traceService: TraceServiceTypes | undefined;
function traceServiceTypes(): TraceServiceTypes {
  traceService ??= requireCommonJs('otlp-proto-root/build/src/generated/root').opentelemetry.proto.collector.trace
    .v1 as TraceServiceTypes;
  return traceService;
}

/**
 * Reads a body of either encoding within the limits: the spans, and those refused and the texts cut on the way.
 * Throws UnreadableRequestError (400) or RequestPastLimitsError (413).
 */
export async function readTracesRequest(
  format: 'protobuf' | 'json',
  body: Buffer,
): Promise<{ spans: ExportedSpan[]; notes: ReadingNotes }> {
  return format === 'protobuf' ? readProtobufRequest(body) : readJsonRequest(body.toString('utf8'));
}

/**
 * Reads a JSON body: ids come as hex strings, 64-bit times as strings or numbers. The outer shape is checked
 * first, and the spans counted (past the limit: 413); then each span is checked and read on its own, within
 * the per-span limits, the event loop getting its turn between spans. (JSON.parse itself is one call: the JSON
 * body's own size limit, in traces-endpoint.ts, bounds it.)
 */
export async function readJsonRequest(text: string): Promise<{ spans: ExportedSpan[]; notes: ReadingNotes }> {
  let object: unknown;
  try {
    object = JSON.parse(text);
  } catch (error) {
    throw new UnreadableRequestError(`not JSON: ${(error as Error).message}`);
  }
  const request = parsed(requestShape, object, '');
  const spanCount = request.resourceSpans.reduce(
    (sum, resourceSpans) => sum + resourceSpans.scopeSpans.reduce((count, scope) => count + scope.spans.length, 0),
    0,
  );
  if (spanCount > OTLP_LIMITS.spansPerRequest) throw tooManySpans(spanCount);
  const notes: ReadingNotes = { refused: [], cutTexts: 0 };
  const spans: ExportedSpan[] = [];
  const yieldToLoop = loopYielder();
  const hexOf = (id: unknown) => (typeof id === 'string' ? id.toLowerCase() : '');
  for (const [r, resourceSpans] of request.resourceSpans.entries()) {
    const resourceAttributes = resourceSpans.resource?.attributes ?? [];
    const resource = limitedAttributesOf(resourceAttributes, OTLP_LIMITS.attributesPerResource, notes);
    for (const [s, scopeSpans] of resourceSpans.scopeSpans.entries()) {
      for (const [index, rawSpan] of scopeSpans.spans.entries()) {
        await yieldToLoop();
        const span = parsed(spanShape, rawSpan, `resourceSpans.${r}.scopeSpans.${s}.spans.${index}`);
        const spanId = hexOf(span.spanId);
        const refuse = (reason: string) => notes.refused.push({ spanId: SPAN_ID.test(spanId) ? spanId : '', reason });
        if (typeof resource === 'string') {
          refuse(`its resource ${resource}`);
          continue;
        }
        const problem = spanProblem(span);
        if (problem) {
          refuse(problem);
          continue;
        }
        const attributes = limitedAttributesOf(span.attributes, OTLP_LIMITS.attributesPerSpan, notes);
        if (typeof attributes === 'string') {
          refuse(`a span ${attributes}`);
          continue;
        }
        const traceId = hexOf(span.traceId);
        if (!TRACE_ID.test(traceId) || !SPAN_ID.test(spanId))
          throw new UnreadableRequestError('a span has no valid traceId (16 bytes) or spanId (8 bytes)');
        const parent = span.parentSpanId === undefined ? '' : hexOf(span.parentSpanId);
        spans.push({
          traceId,
          spanId,
          parentSpanId: SPAN_ID.test(parent) && parent !== '0000000000000000' ? parent : null,
          name: cutText(span.name, notes),
          kind: typeof span.kind === 'number' ? span.kind : (SPAN_KINDS[span.kind ?? ''] ?? 0),
          startNanos: span.startTimeUnixNano,
          endNanos: span.endTimeUnixNano,
          statusCode: span.status?.code ?? 0,
          statusMessage: cutText(span.status?.message ?? '', notes),
          attributes,
          resource,
          exceptionMessages: exceptionTextsOf(span.events, 'exception.message'),
          exceptionTypes: exceptionTextsOf(span.events, 'exception.type'),
        });
      }
    }
  }
  return { spans, notes };
}

/** The events of a span past their limits, as the reason to refuse it. */
function spanProblem(span: z.output<typeof spanShape>): string | undefined {
  if (span.events.length > OTLP_LIMITS.eventsPerSpan) return `a span has more than ${OTLP_LIMITS.eventsPerSpan} events`;
  if (span.events.some((event) => event.attributes.length > OTLP_LIMITS.attributesPerEvent))
    return `an event has more than ${OTLP_LIMITS.attributesPerEvent} attributes`;
  return undefined;
}

/** Attributes within `limit` and the nested values' limits (else the problem, as text), texts cut as counted. */
function limitedAttributesOf(
  keyValues: readonly OtlpKeyValue[],
  limit: number,
  notes: ReadingNotes,
): Map<string, AttributeValue> | string {
  if (keyValues.length > limit) return `has more than ${limit} attributes`;
  for (const { value } of keyValues) {
    const problem = value ? nestedValueProblem(value) : undefined;
    if (problem) return problem.replace(/^an attribute value/, 'has an attribute value that');
    if (typeof value?.stringValue === 'string') value.stringValue = cutText(value.stringValue, notes);
  }
  return attributesOf(keyValues);
}

/** A text within OTLP_LIMITS.valueBytes (its first valueBytes when longer, counted). */
function cutText(text: string, notes: ReadingNotes): string {
  // Three bytes at most per UTF-16 unit: shorter texts need no count of their bytes.
  if (text.length * 3 <= OTLP_LIMITS.valueBytes || Buffer.byteLength(text) <= OTLP_LIMITS.valueBytes) return text;
  notes.cutTexts += 1;
  return Buffer.from(text)
    .toString('utf8', 0, OTLP_LIMITS.valueBytes)
    .replace(/\uFFFD$/, '');
}

function parsed<T extends z.ZodType>(shape: T, object: unknown, at: string): z.output<T> {
  const result = shape.safeParse(object);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = [at, ...(issue?.path ?? [])].filter((part) => part !== '').join('.');
    throw new UnreadableRequestError(`not an ExportTraceServiceRequest: ${path}: ${issue?.message}`);
  }
  return result.data;
}

/** The answer: protobuf or JSON as the request came, with the count of spans not taken and why (or a warning). */
export function encodeResponse(
  format: 'protobuf' | 'json',
  rejected: { count: number; message: string },
): Uint8Array | string {
  // No span refused but a message: a warning, as the OTLP specification allows (rejected spans 0).
  const partialSuccess =
    rejected.count > 0 || rejected.message !== ''
      ? { rejectedSpans: String(rejected.count), errorMessage: rejected.message }
      : undefined;
  if (format === 'json') return JSON.stringify(partialSuccess ? { partialSuccess } : {});
  const type = traceServiceTypes().ExportTraceServiceResponse;
  return type.encode(type.fromObject(partialSuccess ? { partialSuccess } : {})).finish();
}

const uint64 = z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()]).transform(BigInt);
const id = z.unknown();
const keyValues = z.array(z.custom<OtlpKeyValue>((value) => typeof value === 'object' && value !== null)).default([]);
const spanShape = z.object({
  traceId: id,
  spanId: id,
  parentSpanId: id.optional(),
  name: z.string().default(''),
  kind: z.union([z.number(), z.string()]).optional(),
  startTimeUnixNano: uint64,
  endTimeUnixNano: uint64,
  attributes: keyValues,
  status: z.object({ code: z.number().int().default(0), message: z.string().default('') }).optional(),
  events: z.array(z.object({ name: z.string().default(''), attributes: keyValues })).default([]),
});
/** The request's outer shape: its spans are checked one at a time (spanShape), once counted. */
const requestShape = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes: keyValues }).optional(),
        scopeSpans: z.array(z.object({ spans: z.array(z.unknown()).default([]) })).default([]),
      }),
    )
    .default([]),
});

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** One text attribute (`exception.message`, `exception.type`) of a span's `exception` events, first first. */
function exceptionTextsOf(
  events: readonly { name?: string | null; attributes: readonly OtlpKeyValue[] }[],
  key: 'exception.message' | 'exception.type',
) {
  const texts: string[] = [];
  for (const event of events) {
    if (event.name !== 'exception') continue;
    const text = attributesOf(event.attributes).get(key);
    if (typeof text === 'string') texts.push(text);
  }
  return texts;
}
