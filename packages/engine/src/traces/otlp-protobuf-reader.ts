import { type AttributeValue, MAX_TEXT } from './attribute-values';
import type { ExportedSpan } from './exported-span';
import { loopYielder, OTLP_LIMITS, type ReadingNotes, tooManySpans, UnreadableRequestError } from './otlp-limits';
import { I64, LEN, type Range, VARINT, WireReader } from './protobuf-wire';

/**
 * Reads a protobuf ExportTraceServiceRequest straight from its bytes (the protobuf wire format of the official
 * .proto files: opentelemetry/proto/collector/trace/v1 and trace/v1), keeping only what Holdfast maps and
 * checking the limits (otlp-limits.ts) as it goes. Nothing is decoded before it is needed: the spans are first
 * counted by their headers alone (past the limit: 413 before any span is read); a span stops being read at its
 * first excess and is skipped by its length; links, scopes and the attributes of events other than `exception`
 * are skipped by their lengths. Between spans the event loop gets its turn every few milliseconds.
 */
export async function readProtobufRequest(body: Buffer): Promise<{ spans: ExportedSpan[]; notes: ReadingNotes }> {
  const reader = new OtlpWireReader(body);
  const notes: ReadingNotes = { refused: [], cutTexts: 0 };
  reader.notes = notes;
  const resources: { resource: Range | null; spans: Range[] }[] = [];
  let spanCount = 0;
  // The request: resource_spans = 1 (ResourceSpans: resource = 1, scope_spans = 2; ScopeSpans: spans = 2).
  reader.fields(0, body.length, (field, wire, start, end) => {
    if (field !== 1 || wire !== LEN) return;
    const entry = { resource: null as Range | null, spans: [] as Range[] };
    resources.push(entry);
    reader.fields(start, end, (resourceField, resourceWire, resourceStart, resourceEnd) => {
      if (resourceWire !== LEN) return;
      if (resourceField === 1) entry.resource = { start: resourceStart, end: resourceEnd };
      if (resourceField !== 2) return;
      reader.fields(resourceStart, resourceEnd, (scopeField, scopeWire, spanStart, spanEnd) => {
        if (scopeField !== 2 || scopeWire !== LEN) return;
        spanCount += 1;
        if (spanCount > OTLP_LIMITS.spansPerRequest) throw tooManySpans(spanCount);
        entry.spans.push({ start: spanStart, end: spanEnd });
      });
    });
  });

  const spans: ExportedSpan[] = [];
  const yieldToLoop = loopYielder();
  for (const entry of resources) {
    // Resource: attributes = 1.
    const resource = new Map<string, AttributeValue>();
    let resourceProblem: string | undefined;
    if (entry.resource) {
      let count = 0;
      reader.fields(entry.resource.start, entry.resource.end, (field, wire, start, end) => {
        if (field !== 1 || wire !== LEN || resourceProblem) return;
        count += 1;
        if (count > OTLP_LIMITS.attributesPerResource)
          resourceProblem = `its resource has more than ${OTLP_LIMITS.attributesPerResource} attributes`;
        else resourceProblem = reader.keyValueInto(resource, start, end);
      });
    }
    for (const range of entry.spans) {
      await yieldToLoop();
      if (resourceProblem) {
        notes.refused.push({ spanId: reader.spanIdOf(range), reason: resourceProblem });
        continue;
      }
      const span = reader.span(range, resource);
      if ('refused' in span) notes.refused.push({ spanId: reader.spanIdOf(range), reason: span.refused });
      else spans.push(span);
    }
  }
  return { spans, notes };
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/** An ExportTraceServiceRequest's messages (request, resource, span, event, status, attributes) over the wire reader. */
class OtlpWireReader extends WireReader {
  /** The span id of a span refused before (or without) reading it, for the answer; '' if it has none. */
  spanIdOf(range: Range): string {
    let spanId = '';
    const found = new Error('found');
    try {
      this.fields(range.start, range.end, (field, wire, start, end) => {
        if (field !== 2 || wire !== LEN) return;
        spanId = end - start === 8 ? this.hex(start, end) : '';
        // Encoders write fields in order: the id comes before the attributes that made the span too large.
        throw found;
      });
    } catch (error) {
      if (error !== found) throw error;
    }
    return spanId;
  }

  /** Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, events 11, status 15. */
  span(range: Range, resource: Map<string, AttributeValue>): ExportedSpan | { refused: string } {
    const span: ExportedSpan = {
      traceId: '',
      spanId: '',
      parentSpanId: null,
      name: '',
      kind: 0,
      startNanos: 0n,
      endNanos: 0n,
      statusCode: 0,
      statusMessage: '',
      attributes: new Map(),
      resource,
      exceptionMessages: [],
      exceptionTypes: [],
    };
    let parent = '';
    let attributes = 0;
    let events = 0;
    let problem: string | undefined;
    const stop = new Error('past a limit');
    try {
      this.fields(range.start, range.end, (field, wire, start, end) => {
        switch (field) {
          case 1:
            if (wire === LEN) span.traceId = this.hex(start, end);
            break;
          case 2:
            if (wire === LEN) span.spanId = this.hex(start, end);
            break;
          case 4:
            if (wire === LEN) parent = this.hex(start, end);
            break;
          case 5:
            if (wire === LEN) span.name = this.text(start, end);
            break;
          case 6:
            if (wire === VARINT) span.kind = Number(this.int64(start, end));
            break;
          case 7:
            if (wire === I64) span.startNanos = this.bytes.readBigUInt64LE(start);
            break;
          case 8:
            if (wire === I64) span.endNanos = this.bytes.readBigUInt64LE(start);
            break;
          case 9:
            if (wire !== LEN) break;
            attributes += 1;
            problem =
              attributes > OTLP_LIMITS.attributesPerSpan
                ? `a span has more than ${OTLP_LIMITS.attributesPerSpan} attributes`
                : this.keyValueInto(span.attributes, start, end);
            if (problem) throw stop;
            break;
          case 11:
            if (wire !== LEN) break;
            events += 1;
            problem =
              events > OTLP_LIMITS.eventsPerSpan
                ? `a span has more than ${OTLP_LIMITS.eventsPerSpan} events`
                : this.eventInto(span, start, end);
            if (problem) throw stop;
            break;
          case 15:
            if (wire === LEN) this.statusInto(span, start, end);
            break;
        }
      });
    } catch (error) {
      if (error !== stop) throw error;
      return { refused: problem! };
    }
    if (!TRACE_ID.test(span.traceId) || !SPAN_ID.test(span.spanId))
      throw new UnreadableRequestError('a span has no valid traceId (16 bytes) or spanId (8 bytes)');
    span.parentSpanId = SPAN_ID.test(parent) && parent !== '0000000000000000' ? parent : null;
    return span;
  }

  /** Status: message 2, code 3. */
  private statusInto(span: ExportedSpan, start: number, end: number) {
    this.fields(start, end, (field, wire, fieldStart, fieldEnd) => {
      if (field === 2 && wire === LEN) span.statusMessage = this.text(fieldStart, fieldEnd);
      if (field === 3 && wire === VARINT) span.statusCode = Number(this.int64(fieldStart, fieldEnd));
    });
  }

  /**
   * Event: name 2, attributes 3. Only an `exception` event's `exception.message` and `exception.type` are read;
   * the attributes are counted, the other values skipped. A problem (past a limit) as its text.
   */
  private eventInto(
    span: Pick<ExportedSpan, 'exceptionMessages' | 'exceptionTypes'>,
    start: number,
    end: number,
  ): string | undefined {
    let name = '';
    let message: Range | undefined;
    let type: Range | undefined;
    let attributes = 0;
    let problem: string | undefined;
    this.fields(start, end, (field, wire, fieldStart, fieldEnd) => {
      if (wire !== LEN) return;
      if (field === 2) name = this.text(fieldStart, fieldEnd);
      if (field !== 3 || problem) return;
      attributes += 1;
      if (attributes > OTLP_LIMITS.attributesPerEvent) {
        problem = `an event has more than ${OTLP_LIMITS.attributesPerEvent} attributes`;
        return;
      }
      let key = '';
      let value: Range | undefined;
      this.fields(fieldStart, fieldEnd, (kvField, kvWire, kvStart, kvEnd) => {
        if (kvWire !== LEN) return;
        // Only the two short keys read here are ever decoded: any other key is skipped by its length.
        if (kvField === 1 && (kvEnd - kvStart === 17 || kvEnd - kvStart === 14))
          key = this.bytes.toString('latin1', kvStart, kvEnd);
        if (kvField === 2) value = { start: kvStart, end: kvEnd };
      });
      if (key === 'exception.message') message = value;
      if (key === 'exception.type') type = value;
    });
    if (problem) return problem;
    if (name !== 'exception') return undefined;
    // Each value read as any attribute's; only a text is a message or a type.
    const values = new Map<string, AttributeValue>();
    if (message) this.valueInto(values, 'exception.message', message);
    if (type) this.valueInto(values, 'exception.type', type);
    const text = values.get('exception.message');
    if (typeof text === 'string') span.exceptionMessages.push(text);
    const errorType = values.get('exception.type');
    if (typeof errorType === 'string') span.exceptionTypes.push(errorType);
    return undefined;
  }

  /** KeyValue: key 1, value 2 (AnyValue), set in `into`. A problem (past a limit) as its text. */
  keyValueInto(into: Map<string, AttributeValue>, start: number, end: number): string | undefined {
    let key: string | undefined;
    let value: Range | undefined;
    this.fields(start, end, (field, wire, fieldStart, fieldEnd) => {
      if (wire !== LEN) return;
      if (field === 1) key = this.text(fieldStart, fieldEnd);
      if (field === 2) value = { start: fieldStart, end: fieldEnd };
    });
    if (key === undefined || !value) return undefined;
    return this.valueInto(into, key, value);
  }

  /**
   * AnyValue: string 1, bool 2, int 3, double 4, array 5, kvlist 6, bytes 7 (the last one set wins, as for a
   * oneof). Texts, numbers and booleans are kept as they are (integers past 2^53 as their decimal text); arrays
   * and kvlists as their OTLP JSON text, which no mapping rule reads; bytes not at all.
   */
  private valueInto(into: Map<string, AttributeValue>, key: string, range: Range): string | undefined {
    let value: AttributeValue | undefined;
    let problem: string | undefined;
    this.fields(range.start, range.end, (field, wire, start, end) => {
      if (field === 1 && wire === LEN) value = this.text(start, end).slice(0, MAX_TEXT);
      else if (field === 2 && wire === VARINT) value = this.int64(start, end) !== 0n;
      else if (field === 3 && wire === VARINT) {
        const int = this.int64(start, end);
        const number = Number(int);
        value = Number.isSafeInteger(number) ? number : String(int);
      } else if (field === 4 && wire === I64) value = this.bytes.readDoubleLE(start);
      else if ((field === 5 || field === 6) && wire === LEN) {
        const budget = { left: OTLP_LIMITS.nestedValues };
        const nested = this.nested(field === 5 ? 'array' : 'kvlist', { start, end }, 1, budget);
        if (typeof nested === 'string') problem = nested;
        else value = JSON.stringify(nested).slice(0, MAX_TEXT);
      } else if (field === 7) value = undefined;
    });
    if (problem) return problem;
    if (value !== undefined) into.set(key, value);
    return undefined;
  }

  /** An ArrayValue (values 1: AnyValue) or KeyValueList (values 1: KeyValue) as OTLP JSON, or the limit passed. */
  private nested(
    kind: 'array' | 'kvlist',
    range: Range,
    depth: number,
    budget: { left: number },
  ): Record<string, unknown> | string {
    if (depth > OTLP_LIMITS.nestedDepth)
      return `an attribute value nests arrays or kvlists more than ${OTLP_LIMITS.nestedDepth} deep`;
    const values: unknown[] = [];
    let problem: string | undefined;
    this.fields(range.start, range.end, (field, wire, start, end) => {
      if (field !== 1 || wire !== LEN || problem) return;
      budget.left -= 1;
      if (budget.left < 0) {
        problem = `an attribute value holds more than ${OTLP_LIMITS.nestedValues} values`;
        return;
      }
      if (kind === 'array') {
        const value = this.plainNested({ start, end }, depth, budget);
        if (typeof value === 'string') problem = value;
        else values.push(value);
        return;
      }
      let key = '';
      let value: Record<string, unknown> | string = {};
      this.fields(start, end, (kvField, kvWire, kvStart, kvEnd) => {
        if (kvWire !== LEN) return;
        if (kvField === 1) key = this.text(kvStart, kvEnd);
        if (kvField === 2) value = this.plainNested({ start: kvStart, end: kvEnd }, depth, budget);
      });
      if (typeof value === 'string') problem = value;
      else values.push({ key, value });
    });
    return problem ?? { values };
  }

  /** One AnyValue inside an array or kvlist, as OTLP JSON. */
  private plainNested(range: Range, depth: number, budget: { left: number }): Record<string, unknown> | string {
    let value: Record<string, unknown> | string = {};
    this.fields(range.start, range.end, (field, wire, start, end) => {
      if (typeof value === 'string') return;
      if (field === 1 && wire === LEN) value = { stringValue: this.text(start, end) };
      else if (field === 2 && wire === VARINT) value = { boolValue: this.int64(start, end) !== 0n };
      else if (field === 3 && wire === VARINT) value = { intValue: String(this.int64(start, end)) };
      else if (field === 4 && wire === I64) value = { doubleValue: this.bytes.readDoubleLE(start) };
      else if (field === 5 && wire === LEN) {
        const nested = this.nested('array', { start, end }, depth + 1, budget);
        value = typeof nested === 'string' ? nested : { arrayValue: nested };
      } else if (field === 6 && wire === LEN) {
        const nested = this.nested('kvlist', { start, end }, depth + 1, budget);
        value = typeof nested === 'string' ? nested : { kvlistValue: nested };
      } else if (field === 7 && wire === LEN) value = { bytesValue: this.bytes.toString('base64', start, end) };
    });
    return value;
  }
}
