/**
 * What one OTLP/HTTP traces request may hold (docs/agents/opentelemetry.md, "Limits"). The per-span figures are
 * the OpenTelemetry SDK's own default span limits (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, OTEL_SPAN_EVENT_COUNT_LIMIT,
 * OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT: 128 each), so a span an SDK made with its defaults always fits; the spans per
 * request are the attempts batch's 1,000 (an SDK's batch processor sends 512). They are checked while the body
 * is read, so a body past them costs no more than reading up to the first excess.
 *
 * - more spans than `spansPerRequest`: 413, nothing stored (an exporter does not retry a 413);
 * - a span past a per-span figure (attributes, events, an event's attributes, an attribute value's nested values
 *   or depth): that span is refused whole and counted in the answer's partialSuccess (rejectedSpans, with the
 *   reason in errorMessage): a span cut to its first 128 attributes might have lost the very attribute that names
 *   its task or agent, and would be written as another attempt than it is; the other spans are taken;
 * - a resource past `attributesPerResource`: each of its spans refused, as above;
 * - a text longer than `valueBytes` (attribute values, names, status messages): only its first `valueBytes` are
 *   read (Holdfast keeps 20,000 characters of any text), and the answer's errorMessage counts the texts cut. The
 *   SDK sets no length by default, and a model call's captured prompt can be long: refusing its span would lose
 *   the call, while nothing Holdfast reads lies past the cut.
 */
export const OTLP_LIMITS = {
  spansPerRequest: 1_000,
  attributesPerSpan: 128,
  attributesPerResource: 128,
  eventsPerSpan: 128,
  attributesPerEvent: 128,
  /** Values inside one array or kvlist attribute value, counted at every level. */
  nestedValues: 128,
  /** Arrays and kvlists inside one another in one attribute value. */
  nestedDepth: 4,
  valueBytes: 64 * 1024,
} as const;

/** The whole body refused: 400 (not an OTLP request). */
export class UnreadableRequestError extends Error {}

/** The whole body refused: 413 (past a per-request limit), nothing stored. */
export class RequestPastLimitsError extends Error {}

/** A span refused while it was read (counted in partialSuccess); its span id when it was read before the excess. */
export interface RefusedSpan {
  spanId: string;
  reason: string;
}

/** Spans refused while reading, and texts cut at `valueBytes`. */
export interface ReadingNotes {
  refused: RefusedSpan[];
  cutTexts: number;
}

export const tooManySpans = (count: number) =>
  new RequestPastLimitsError(
    `An export request holds at most ${OTLP_LIMITS.spansPerRequest} spans (this one ${count > OTLP_LIMITS.spansPerRequest ? 'more' : count}); send smaller batches (the SDK's OTEL_BSP_MAX_EXPORT_BATCH_SIZE)`,
  );

/**
 * Gives the event loop its turn once `sliceMs` have passed since the last: a long read or mapping awaits it
 * between spans, so no request holds the loop (and every other request this process serves) for longer.
 */
export function loopYielder(sliceMs = 2): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}
