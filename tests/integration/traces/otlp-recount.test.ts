import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { priceCall } from '../../../packages/engine/src/core/pricing/price-call';
import { getStepStats } from '../../../lib/queries/step-stats';
import { rollUpAttempts } from '../../../packages/engine/src/rollups/roll-up';
import { ingestSpans } from '../../../packages/engine/src/traces/ingest-spans';
import { DEFAULT_SPAN_MAPPING_RULES } from '../../../packages/engine/src/traces/mapping-rules';
import { readJsonRequest } from '../../../packages/engine/src/traces/otlp-request';
import { useTestDatabase } from '../../support/test-database';

/**
 * Priced span attempts keep the figures exact: model calls with token counts (some cut short by a 503,
 * some refused with a 429) arrive in two batches with a rollup pass between them, so executions are
 * numbered again after their hours were rolled. The console's figures, from rollups and from the raw
 * log, equal a recount made here from the spans themselves.
 */
const database = useTestDatabase();
const HOUR_MS = 3_600_000;
const AGENT = 'otel-recount';
const STEP = 'chat';

function randomSource(seed: number) {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return { int: (below: number) => Math.floor(next() * below), next };
}

interface ModelSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  start: number;
  inputTokens: number;
  outputTokens: number;
  status?: 429 | 503;
}

/** An OTLP/JSON export of these spans, as an exporter sends it. */
function exportOf(spans: ModelSpan[]): string {
  const attribute = (key: string, value: string | number) => ({
    key,
    value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value },
  });
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [attribute('service.name', AGENT)] },
        scopeSpans: [
          {
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId,
              name: STEP,
              startTimeUnixNano: String(BigInt(span.start) * 1_000_000n),
              endTimeUnixNano: String(BigInt(span.start + 900) * 1_000_000n),
              status: span.status ? { code: 2, message: `HTTP ${span.status}` } : { code: 1 },
              attributes: [
                attribute('gen_ai.operation.name', 'chat'),
                attribute('gen_ai.request.model', 'gpt-4o'),
                attribute('gen_ai.provider.name', 'openai'),
                attribute('gen_ai.usage.input_tokens', span.inputTokens),
                attribute('gen_ai.usage.output_tokens', span.outputTokens),
                ...(span.status ? [attribute('http.response.status_code', span.status)] : []),
              ],
            })),
          },
        ],
      },
    ],
  });
}

/** What a span costs by the rules, computed here from its tokens. */
function costOf(span: ModelSpan): number {
  return priceCall({
    usage: { inputTokens: span.inputTokens, outputTokens: span.outputTokens },
    model: 'gpt-4o',
    provider: 'openai',
    failure: span.status
      ? { httpStatus: span.status, errorClass: span.status === 429 ? 'rate_limited' : 'transient' }
      : undefined,
    at: new Date(span.start),
  }).costMicros;
}

describe('priced span attempts and the recount', () => {
  it('rollups and the raw log agree with a recount from the spans, across renumbering after a rollup', async () => {
    const random = randomSource(26);
    const now = Date.now();
    const executions: ModelSpan[][] = [];
    for (let index = 0; index < 40; index += 1) {
      const traceId = randomBytes(16).toString('hex');
      const parentSpanId = randomBytes(8).toString('hex');
      const begin = now - 3 * HOUR_MS + random.int(2 * HOUR_MS);
      const tries = 1 + random.int(3);
      // Each try starts after the one before (retries cross hour boundaries now and then): the last one, the
      // success, ends the operation, and a call after it would be another one.
      let at = begin;
      executions.push(
        Array.from({ length: tries }, (_, attempt) => ({
          traceId,
          spanId: randomBytes(8).toString('hex'),
          parentSpanId,
          start: attempt === 0 ? at : (at += 60_000 + random.int(40 * 60_000)),
          inputTokens: 500 + random.int(5_000),
          outputTokens: random.int(800),
          status: attempt < tries - 1 ? (random.next() < 0.5 ? 429 : 503) : undefined,
        })),
      );
    }
    // Each execution's later spans in the first batch, its first span in the second: attempt 1 arrives last.
    const first = executions.flatMap((spans) => spans.slice(1));
    const second = executions.map((spans) => spans[0]!);
    const ctx = { db: database.db };
    expect(
      (await ingestSpans(ctx, (await readJsonRequest(exportOf(first))).spans, DEFAULT_SPAN_MAPPING_RULES)).rejected,
    ).toEqual([]);
    await rollUpAttempts(database.db, { now: new Date(), retentionFloor: new Date(now - 2 * 24 * HOUR_MS) });
    expect(
      (await ingestSpans(ctx, (await readJsonRequest(exportOf(second))).spans, DEFAULT_SPAN_MAPPING_RULES)).rejected,
    ).toEqual([]);
    await rollUpAttempts(database.db, { now: new Date(), retentionFloor: new Date(now - 2 * 24 * HOUR_MS) });

    const recount = {
      attempts: executions.flat().length,
      retries: executions.flat().length - executions.length,
      totalSpendMicros: executions.flat().reduce((sum, span) => sum + costOf(span), 0),
      // Every execution ends in a success: what it spent beyond one try is what its failed tries cost.
      retrySpendMicros: executions.flatMap((spans) => spans.slice(0, -1)).reduce((sum, span) => sum + costOf(span), 0),
      refusedCostingNothing: executions.flat().filter((span) => span.status === 429).length,
    };
    expect(recount.retrySpendMicros).toBeGreaterThan(0);
    const window = { from: new Date(now - 4 * HOUR_MS), to: new Date(now + 60_000) };
    for (const rawOnly of [false, true]) {
      const [step] = (await getStepStats(database.db, window, { rawOnly })).filter((row) => row.agent === AGENT);
      expect(step, rawOnly ? 'raw' : 'rolled').toMatchObject({
        step: STEP,
        attempts: recount.attempts,
        retries: recount.retries,
        totalSpendMicros: recount.totalSpendMicros,
        retrySpendMicros: recount.retrySpendMicros,
      });
    }
    const [sources] = await database.sql<{ rule: number; priced: number }[]>`
      select count(*) filter (where cost_source = 'rule')::int as rule, count(*) filter (where cost_source = 'priced')::int as priced
      from attempts where agent = ${AGENT}`;
    expect(sources).toEqual({
      rule: recount.refusedCostingNothing,
      priced: recount.attempts - recount.refusedCostingNothing,
    });
  });
});
