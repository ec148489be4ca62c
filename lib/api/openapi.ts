import { z } from 'zod';
import { endpoints, STOP_CODES, TRY_LATER_CODES, type Endpoint } from './endpoints';

const COMMON_PROBLEMS = ['INVALID_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN', 'PAYLOAD_TOO_LARGE', 'IDEMPOTENCY_KEY_REUSED', 'REQUEST_IN_PROGRESS'];

/** A request body's JSON Schema from its zod schema; dates travel as ISO 8601 strings. */
function requestSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: (context) => {
      const type = (context.zodSchema as { _zod?: { def?: { type?: string } } })._zod?.def?.type;
      if (type === 'date') Object.assign(context.jsonSchema, { type: 'string', format: 'date-time' });
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return collapseSameAlternatives(json) as Record<string, unknown>;
}

/**
 * An `anyOf` of date-time strings only (a moment is a Date in-process or an
 * ISO string over the API; both travel as the string) becomes its most
 * specific alternative.
 */
function collapseSameAlternatives(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(collapseSameAlternatives);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).map(([key, value]) => [key, collapseSameAlternatives(value)] as const);
  const result = Object.fromEntries(entries) as Record<string, unknown>;
  const alternatives = result.anyOf;
  const isDateTime = (item: unknown) => (item as { type?: string; format?: string }).type === 'string' && (item as { format?: string }).format === 'date-time';
  if (Array.isArray(alternatives) && alternatives.length > 0 && alternatives.every(isDateTime)) {
    const { anyOf: _alternatives, ...rest } = result;
    const mostSpecific = [...alternatives].sort((a, b) => Object.keys(b as object).length - Object.keys(a as object).length)[0];
    return { ...rest, ...(mostSpecific as object) };
  }
  return result;
}

const statusOf = (code: string) =>
  ({ INVALID_INPUT: 400, UNAUTHENTICATED: 401, FORBIDDEN: 403, NOT_FOUND: 404, PAYLOAD_TOO_LARGE: 413, IDEMPOTENCY_KEY_REUSED: 422 })[code] ?? 409;

function operation(spec: Endpoint) {
  const problems = [...new Set([...COMMON_PROBLEMS, ...spec.problems])];
  const byStatus = new Map<number, string[]>();
  for (const code of problems) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  return {
    operationId: spec.name,
    summary: spec.summary,
    security: [{ bearer: [] }],
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Retrying with the same key returns the first response instead of acting again (kept 24 h).',
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: requestSchema(spec.input) } } },
    responses: {
      ...Object.fromEntries(Object.entries(spec.responses).map(([status, description]) => [status, { description, content: { 'application/json': { schema: { type: 'object' } } } }])),
      ...Object.fromEntries(
        [...byStatus].map(([status, codes]) => [
          String(status),
          { description: `Problem: ${codes.join(', ')}`, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        ]),
      ),
    },
  };
}

/** The OpenAPI 3.1 document of the agents' API, generated from the endpoint registry and its zod schemas. */
export function buildOpenApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Holdfast agent API',
      version: '1',
      description:
        'The HTTP face of the Holdfast library, for agents in any language. Authenticate with an API token (Authorization: Bearer hf_...). ' +
        `Errors are RFC 9457 problem documents with a stable \`code\`. Stop codes (retrying the same request will not help): ${STOP_CODES.join(', ')}. ` +
        `Try-later codes (with Retry-After): ${TRY_LATER_CODES.join(', ')}. Bodies are limited to 64 KiB; unknown fields are refused.`,
    },
    servers: [{ url: '/' }],
    paths: Object.fromEntries(Object.values(endpoints).map((spec) => [spec.path, { post: operation(spec) }])),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'code', 'detail'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            code: { type: 'string', description: 'Stable, machine-readable' },
            detail: { type: 'string' },
            retryable: { type: 'boolean', description: 'false: stop; true: try again after retryAfterSeconds' },
            retryAfterSeconds: { type: 'integer' },
            fieldErrors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'For INVALID_INPUT: messages per field, e.g. `attempts.3.startedAt`' },
          },
        },
      },
    },
  };
}
