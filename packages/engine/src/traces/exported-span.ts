import type { AttributeValue } from './attribute-values';

/** One span of an export request, as both readers (protobuf and JSON, otlp-request.ts) make it. */
export interface ExportedSpan {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits. */
  spanId: string;
  /** Null for a root span. */
  parentSpanId: string | null;
  name: string;
  /** 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNanos: bigint;
  endNanos: bigint;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  attributes: Map<string, AttributeValue>;
  /** The resource's attributes (service.name, ...), shared by the spans of one resource. */
  resource: Map<string, AttributeValue>;
  /** Messages of the span's `exception` events, first first. */
  exceptionMessages: string[];
  /** Types of the span's `exception` events (`exception.type`: an SDK's error class), first first. */
  exceptionTypes: string[];
}
