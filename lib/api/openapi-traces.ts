import { z } from 'zod';
import { tracesEndpoint } from '@holdfast/protocol/api/endpoints';

/**
 * POST /v1/traces in the OpenAPI document: OpenTelemetry's ExportTraceServiceRequest in
 * either OTLP/HTTP encoding, gzip or not, answered by an ExportTraceServiceResponse in the
 * request's encoding (lib/server/traces-endpoint.ts). The JSON request schema is the OTLP
 * JSON mapping of the fields Holdfast reads; other fields are allowed and ignored.
 */

/**
 * The answer in the JSON encoding: OpenTelemetry's ExportTraceServiceResponse (the protobuf
 * answer is the same message, binary). Empty when every span was taken.
 */
export const exportTraceServiceResponse = z.strictObject({
  partialSuccess: z
    .strictObject({
      rejectedSpans: z
        .string()
        .regex(/^[1-9]\d*$/)
        .describe('How many spans of the batch were not taken (int64, a string in the JSON mapping)'),
      errorMessage: z.string().describe('The first few reasons, joined by "; "'),
    })
    .optional()
    .describe('Present when some spans could not become attempts; the rest of the batch was taken'),
});

const problemRef = { $ref: '#/components/schemas/Problem' };
const retryAfter = {
  'Retry-After': {
    description: 'Seconds to wait before sending the same batch again; OTLP exporters honour it',
    schema: { type: 'integer', minimum: 1 },
  },
};
const mebibytes = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

const anyValue = {
  type: 'object',
  description:
    'One of stringValue, boolValue, intValue (int64: a string or a number), doubleValue, arrayValue, kvlistValue, bytesValue',
  properties: {
    stringValue: { type: 'string' },
    boolValue: { type: 'boolean' },
    intValue: { oneOf: [{ type: 'string', pattern: '^-?\\d+$' }, { type: 'integer' }] },
    doubleValue: { type: 'number' },
    arrayValue: {
      type: 'object',
      properties: { values: { type: 'array', items: { $ref: '#/components/schemas/OtlpAnyValue' } } },
    },
    kvlistValue: {
      type: 'object',
      properties: { values: { type: 'array', items: { $ref: '#/components/schemas/OtlpKeyValue' } } },
    },
    bytesValue: { type: 'string', contentEncoding: 'base64' },
  },
};
const keyValue = {
  type: 'object',
  required: ['key'],
  properties: { key: { type: 'string' }, value: { $ref: '#/components/schemas/OtlpAnyValue' } },
};
const attributes = { type: 'array', items: { $ref: '#/components/schemas/OtlpKeyValue' } };
const unixNanos = {
  description: 'Nanoseconds since the Unix epoch (uint64: a decimal string or a number)',
  oneOf: [
    { type: 'string', pattern: '^\\d{1,20}$' },
    { type: 'integer', minimum: 0 },
  ],
};
const span = {
  type: 'object',
  required: ['traceId', 'spanId', 'startTimeUnixNano', 'endTimeUnixNano'],
  properties: {
    traceId: { type: 'string', pattern: '^[0-9a-fA-F]{32}$', description: '16 bytes, hex' },
    spanId: { type: 'string', pattern: '^[0-9a-fA-F]{16}$', description: '8 bytes, hex' },
    parentSpanId: { type: 'string', description: '8 bytes, hex; empty or absent for a root span' },
    name: { type: 'string' },
    startTimeUnixNano: unixNanos,
    endTimeUnixNano: unixNanos,
    attributes,
    events: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, attributes } },
      description: 'An `exception` event gives the error text when the status has none',
    },
    status: {
      type: 'object',
      properties: {
        code: { type: 'integer', enum: [0, 1, 2], description: '0 unset, 1 ok, 2 error (a failed attempt)' },
        message: { type: 'string' },
      },
    },
  },
};
const exportTraceServiceRequest = {
  type: 'object',
  description:
    'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest in the OTLP JSON mapping. Spans become attempts by the GenAI conventions (docs/agents/opentelemetry.md).',
  properties: {
    resourceSpans: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          resource: { type: 'object', properties: { attributes } },
          scopeSpans: {
            type: 'array',
            items: { type: 'object', properties: { spans: { type: 'array', items: span } } },
          },
        },
      },
    },
  },
};

/** The schemas the operation refers to, for components/schemas. */
export function tracesSchemas(): Record<string, unknown> {
  const { $schema: _schema, ...response } = z.toJSONSchema(exportTraceServiceResponse, { io: 'output' });
  return {
    ExportTraceServiceRequest: exportTraceServiceRequest,
    ExportTraceServiceResponse: response,
    OtlpKeyValue: keyValue,
    OtlpAnyValue: anyValue,
  };
}

function problem(description: string, headers?: Record<string, unknown>) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/problem+json': { schema: problemRef } },
  };
}

/** The operation under paths['/v1/traces'].post. */
export function tracesOperation() {
  const { maxBodyBytes, maxInflatedBodyBytes } = tracesEndpoint;
  return {
    operationId: tracesEndpoint.name,
    summary: tracesEndpoint.summary,
    externalDocs: {
      description: 'OTLP/HTTP, as the OpenTelemetry protocol specifies it',
      url: 'https://opentelemetry.io/docs/specs/otlp/#otlphttp',
    },
    security: [{ bearer: [] }],
    parameters: [
      {
        name: 'Content-Encoding',
        in: 'header',
        required: false,
        description: 'gzip, or none (identity)',
        schema: { type: 'string', enum: [...tracesEndpoint.contentEncodings] },
      },
    ],
    requestBody: {
      required: true,
      description: `At most ${mebibytes(maxBodyBytes)} as sent and ${mebibytes(maxInflatedBodyBytes)} once inflated.`,
      content: {
        'application/x-protobuf': {
          schema: {
            type: 'string',
            contentMediaType: 'application/x-protobuf',
            description: 'ExportTraceServiceRequest, binary protobuf encoding',
          },
        },
        'application/json': { schema: { $ref: '#/components/schemas/ExportTraceServiceRequest' } },
      },
    },
    responses: {
      200: {
        description:
          "Taken. An ExportTraceServiceResponse in the request's encoding: empty, or with `partialSuccess` naming how many spans were rejected and the first reasons (a span that names no agent or step, ends before it starts, starts outside the kept days, or acts for an agent the token may not act for); the rest of the batch was taken. Spans that are no model, tool or agent call are skipped, not rejected. A batch sent again adds nothing.",
        content: {
          'application/x-protobuf': {
            schema: {
              type: 'string',
              contentMediaType: 'application/x-protobuf',
              description: 'ExportTraceServiceResponse, binary protobuf encoding',
            },
          },
          'application/json': { schema: { $ref: '#/components/schemas/ExportTraceServiceResponse' } },
        },
      },
      400: problem(
        'INVALID_INPUT: not an ExportTraceServiceRequest, not valid gzip, or nested too deep. Not retried by exporters; nothing is written.',
      ),
      401: problem('UNAUTHENTICATED: no token, or an unknown or revoked one', {
        'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } },
      }),
      403: problem(`FORBIDDEN: the token has neither the ${tracesEndpoint.scopes.join(' nor the ')} scope`),
      413: problem(
        `PAYLOAD_TOO_LARGE: over ${mebibytes(maxBodyBytes)} as sent, or over ${mebibytes(maxInflatedBodyBytes)} once inflated; nothing is written`,
      ),
      415: problem(
        `UNSUPPORTED_MEDIA_TYPE: a content type other than ${tracesEndpoint.contentTypes.join(' or ')}, or an encoding other than gzip`,
      ),
      429: problem("RATE_LIMITED: past the token's rate limit; exporters retry after Retry-After", retryAfter),
      503: problem(
        'DATABASE_UNAVAILABLE: the database is unreachable; nothing of the batch is kept, and exporters send it again after Retry-After',
        retryAfter,
      ),
    },
  };
}
