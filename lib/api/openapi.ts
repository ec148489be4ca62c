import { z } from 'zod';
import { simulatePolicyQuery } from './simulate-policy-query';
import { DEFAULT_TIME_WINDOW, timeWindowName } from '@holdfast/protocol/time-window';
import {
  endpoints,
  MAX_BATCH_BODY_BYTES,
  STOP_CODES,
  TRY_LATER_CODES,
  type Endpoint,
  type EndpointName,
} from '@holdfast/protocol/api/endpoints';
import { tracesOperation, tracesSchemas } from './openapi-traces';
import {
  attemptJson,
  deadLetterJson,
  endpointResponses,
  holdJson,
  okResponse,
  problemDocument,
  redriveJson,
  runJson,
  stepStatsJson,
  stepStatsResponse,
  policySimulationResponse,
  spendBudgetsResponse,
} from '@holdfast/protocol/api/responses';

const COMMON_PROBLEMS = [
  'INVALID_INPUT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'PAYLOAD_TOO_LARGE',
  'IDEMPOTENCY_KEY_REUSED',
  'REQUEST_IN_PROGRESS',
  'RATE_LIMITED',
];

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
  const isDateTime = (item: unknown) =>
    (item as { type?: string; format?: string }).type === 'string' &&
    (item as { format?: string }).format === 'date-time';
  if (Array.isArray(alternatives) && alternatives.length > 0 && alternatives.every(isDateTime)) {
    const { anyOf: _alternatives, ...rest } = result;
    const mostSpecific = [...alternatives].sort(
      (a, b) => Object.keys(b as object).length - Object.keys(a as object).length,
    )[0];
    return { ...rest, ...(mostSpecific as object) };
  }
  return result;
}

/** Shapes several answers share, listed once under components/schemas and referred to by name. */
const sharedShapes = {
  Problem: problemDocument,
  Ok: okResponse,
  Attempt: attemptJson,
  Hold: holdJson,
  DeadLetter: deadLetterJson,
  Redrive: redriveJson,
  Run: runJson,
  StepStats: stepStatsJson,
};

const componentRef = (id: string) => `#/components/schemas/${id}`;

/**
 * components/schemas from the response schemas (packages/protocol/src/api/responses.ts),
 * converted together so they refer to each other by $ref, and the $ref of
 * each. An endpoint's body is its own component, `<Name>Response`, unless it
 * is a shared shape (the `{ ok: true }` of many).
 */
function responseComponents() {
  const registry = z.registry<{ id: string }>();
  const ids = new Map<z.ZodType, string>();
  const addComponent = (schema: z.ZodType, id: string) => {
    if (ids.has(schema)) return; // one schema, one component: the first name wins
    ids.set(schema, id);
    registry.add(schema, { id });
  };
  for (const [id, schema] of Object.entries(sharedShapes)) addComponent(schema, id);
  for (const [endpoint, schema] of Object.entries(endpointResponses))
    addComponent(schema, `${endpoint[0]!.toUpperCase()}${endpoint.slice(1)}Response`);
  addComponent(stepStatsResponse, 'StepStatsResponse');
  addComponent(policySimulationResponse, 'PolicySimulationResponse');
  addComponent(spendBudgetsResponse, 'SpendBudgetsResponse');

  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    uri: componentRef,
    override: ({ jsonSchema }) => dropNoise(jsonSchema as Record<string, unknown>),
  });
  return {
    // $schema and $id are right for a standalone JSON Schema, noise inside an OpenAPI document.
    schemas: Object.fromEntries(
      Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema]),
    ),
    refTo: (schema: z.ZodType) => ({ $ref: componentRef(ids.get(schema)!) }),
  };
}

/** What the format already says: zod's date-time pattern, and the safe-integer bounds every JSON number from JavaScript has. */
function dropNoise(json: Record<string, unknown>) {
  if (json.format === 'date-time') delete json.pattern;
  if (json.type === 'integer' && json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
  if (json.type === 'integer' && json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
}

const statusOf = (code: string) =>
  ({
    INVALID_INPUT: 400,
    UNAUTHENTICATED: 401,
    FORBIDDEN: 403,
    NOT_FOUND: 404,
    PAYLOAD_TOO_LARGE: 413,
    IDEMPOTENCY_KEY_REUSED: 422,
    RATE_LIMITED: 429,
  })[code] ?? 409;

/** One problem response per status, naming the codes it may carry. */
function problemResponses(codes: string[]) {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set(codes)) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]) => [
      String(status),
      {
        description: `Problem: ${statusCodes.join(', ')}`,
        content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } },
      },
    ]),
  );
}

const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });

function operation(spec: Endpoint, response: { $ref: string }) {
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
    requestBody: { required: true, content: jsonContent(requestSchema(spec.input)) },
    responses: {
      ...Object.fromEntries(
        Object.entries(spec.responses).map(([status, description]) => [
          status,
          { description, content: jsonContent(response) },
        ]),
      ),
      ...problemResponses([...COMMON_PROBLEMS, ...spec.problems]),
    },
  };
}

/** GET /api/v1/spend-budgets (app/api/v1/spend-budgets/route.ts): the budgets page's figures for a read-scope token. */
function spendBudgetsOperation(response: { $ref: string }) {
  return {
    operationId: 'getSpendBudgets',
    summary:
      "The fleet's spend budgets with their periods under way: spent (and the part only seen), reserved, retry spend, refusals and when each runs out. Token scope: read.",
    security: [{ bearer: [] }],
    responses: {
      200: { description: 'Every budget, by name', content: jsonContent(response) },
      ...problemResponses(['INVALID_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN']),
    },
  };
}

/** GET /api/v1/step-stats (app/api/v1/step-stats/route.ts): a read-scope token's view of what the Overview shows. */
function stepStatsOperation(response: { $ref: string }) {
  const { $schema: _schema, ...windowSchema } = z.toJSONSchema(timeWindowName);
  return {
    operationId: 'getStepStats',
    summary:
      'Per-step retry figures for a time window (attempts, retries, spend, first-try success, latency percentiles) and the steps flagged as anomalous. Token scope: read.',
    security: [{ bearer: [] }],
    parameters: [
      {
        name: 'window',
        in: 'query',
        required: false,
        description: 'The window ending now.',
        schema: { ...windowSchema, default: DEFAULT_TIME_WINDOW },
      },
    ],
    responses: {
      200: {
        description: 'The window, its bounds and each step that had attempts in it',
        content: jsonContent(response),
      },
      ...problemResponses(['INVALID_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN']),
    },
  };
}

/** GET /api/v1/steps/simulate (app/api/v1/steps/simulate/route.ts): the retry-policy simulator, for a read-scope token. */
function simulateOperation(response: { $ref: string }) {
  const { $schema: _schema, ...querySchema } = z.toJSONSchema(simulatePolicyQuery, { io: 'input' });
  const properties = (querySchema as { properties: Record<string, object> }).properties;
  const required = new Set((querySchema as { required?: string[] }).required ?? []);
  return {
    operationId: 'simulateRetryPolicy',
    summary:
      "Replays a step's recorded attempts over a window (within the raw retention) under at most `maxAttempts` attempts, " +
      'retrying only `retriedClasses`: the retry spend it would save, the executions that would have ended failed, the time ' +
      'saved, by the class of the failure that stops each. Exact from the raw attempt log. Token scope: read.',
    security: [{ bearer: [] }],
    parameters: Object.entries(properties).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.has(name),
      schema,
    })),
    responses: {
      200: { description: 'What the policy would have changed', content: jsonContent(response) },
      ...problemResponses(['INVALID_INPUT', 'UNAUTHENTICATED', 'FORBIDDEN']),
    },
  };
}

type Operation =
  | ReturnType<typeof operation>
  | ReturnType<typeof stepStatsOperation>
  | ReturnType<typeof simulateOperation>
  | ReturnType<typeof spendBudgetsOperation>
  | ReturnType<typeof tracesOperation>;

/** The OpenAPI 3.1 document of the agents' API, generated from the endpoint registry and its zod schemas. */
export function buildOpenApiDocument() {
  const components = responseComponents();
  const paths: Record<string, { get?: Operation; post?: Operation }> = {
    ...Object.fromEntries(
      (Object.keys(endpoints) as EndpointName[]).map((name) => [
        endpoints[name].path,
        { post: operation(endpoints[name], components.refTo(endpointResponses[name])) },
      ]),
    ),
    '/api/v1/step-stats': { get: stepStatsOperation(components.refTo(stepStatsResponse)) },
    '/api/v1/steps/simulate': { get: simulateOperation(components.refTo(policySimulationResponse)) },
    '/api/v1/spend-budgets': { get: spendBudgetsOperation(components.refTo(spendBudgetsResponse)) },
    '/v1/traces': { post: tracesOperation() },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Holdfast agent API',
      version: '1',
      description:
        'The HTTP face of the Holdfast library, for agents in any language. Authenticate with an API token (Authorization: Bearer hf_...). ' +
        `Errors are RFC 9457 problem documents with a stable \`code\`. Stop codes (retrying the same request will not help): ${STOP_CODES.join(', ')}. ` +
        `Try-later codes (with Retry-After): ${TRY_LATER_CODES.join(', ')}. Bodies under /api/v1 are limited to 64 KiB (the attempts batch: ${MAX_BATCH_BODY_BYTES / 1024 / 1024} MiB); unknown fields are refused. ` +
        'POST /v1/traces is an OpenTelemetry OTLP/HTTP traces receiver: it takes what OTLP exporters send.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ...components.schemas, ...tracesSchemas() },
    },
  };
}
