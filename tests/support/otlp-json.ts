import { randomBytes } from 'node:crypto';

/**
 * One span as an OTLP/JSON export carries it, ended a minute ago (within the kept days), with text attributes; a
 * trace and span id of its own. `extra` adds fields (a status, a parent).
 */
export function otlpJsonSpan(
  name: string,
  attributes: Record<string, string>,
  extra: object = {},
  durationMs = 1_000,
): Record<string, unknown> {
  const start = BigInt(Date.now() - 60_000) * 1_000_000n;
  return {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    name,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + BigInt(durationMs) * 1_000_000n),
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
    ...extra,
  };
}

/** An OTLP/JSON export request of one service's spans; `resource` adds resource attributes (a version, an owner). */
export function otlpJsonExport(service: string, spans: object[], resource: Record<string, string> = {}) {
  const attributes = { 'service.name': service, ...resource };
  return {
    resourceSpans: [
      {
        resource: {
          attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
        },
        scopeSpans: [{ spans }],
      },
    ],
  };
}

/**
 * An export of one model call of `taskId`'s step `charge` that failed with a 503, as service `agent` (with more
 * attributes where a test names them): one counted attempt.
 */
export function failedChatExport(taskId: string, agent: string, named: Record<string, string> = {}) {
  const attributes = { 'gen_ai.operation.name': 'chat', 'holdfast.step': 'charge', 'holdfast.task': taskId, ...named };
  const failed = { status: { code: 2, message: '503 from the model provider' } };
  return otlpJsonExport(agent, [otlpJsonSpan('chat', attributes, failed, 100)]);
}
