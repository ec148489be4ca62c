import { type Context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { chance } from './chance';
import { faultFor, sleep } from './faults';
import { callModel } from './model';

/**
 * The briefing agent: a research-like agent that knows nothing of Holdfast. A
 * briefing plans, searches the web three times and summarizes, against the
 * fleet's simulated model and search service, whose faults come from the seed
 * (429s and 503s among them). It retries those itself, with exponential backoff
 * and full jitter, and says what it does only through OpenTelemetry spans, by
 * the GenAI semantic conventions: each try of a call is a span of its own under
 * the run's span, so the tries of one call are siblings. Holdfast sees it
 * because its spans are exported to /v1/traces (briefing-exporter.ts); nothing
 * here imports Holdfast.
 */
export const BRIEFING_AGENT = 'briefing';
/** A model the price table knows, so its calls are priced from their tokens. */
export const BRIEFING_MODEL = 'gpt-4o-mini';
const PROVIDER = 'openai';
const SEARCHES = 3;
/** Tries per call, the first included. */
export const BRIEFING_MAX_TRIES = 4;

export interface BriefingTiming {
  /** The longest a simulated call takes (each takes a seeded part of it). */
  callMs: number;
  /** The first retry's backoff ceiling, doubled for each retry after it (full jitter). */
  backoffMs: number;
}
export const BRIEFING_TIMING: BriefingTiming = { callMs: 400, backoffMs: 250 };

export type BriefingStep = 'plan' | 'search_web' | 'summarize';

/** One try of a call as the agent saw it: its HTTP status and the tokens it reported. */
export interface BriefingTry {
  status: 200 | 400 | 429 | 503;
  inputTokens: number;
  outputTokens: number;
}

/** The agent's own account of a run, to compare with what Holdfast makes of its spans. */
export interface BriefingRun {
  taskId: string;
  calls: { step: BriefingStep; callId?: string; tries: BriefingTry[] }[];
  outcome: 'completed' | 'failed' | 'stopped';
}

export interface BriefingContext {
  tracer: Tracer;
  /** The context the run's span starts in: ROOT_CONTEXT, as no global context manager is installed. */
  parent: Context;
  seed: number;
  timing: BriefingTiming;
  /** Aborted when the fleet stops: a call in flight ends at once, its span marked cancelled. */
  stopping: AbortSignal;
}

class CallFailed extends Error {}
const CANCELLED = 'cancelled: the agent is stopping';

/** One briefing: plan, three searches, summarize; a call that fails for good ends the run. */
export async function runBriefing(agent: BriefingContext, taskId: string): Promise<BriefingRun> {
  const run: BriefingRun = { taskId, calls: [], outcome: 'completed' };
  const common = { 'gen_ai.agent.name': BRIEFING_AGENT, 'gen_ai.conversation.id': taskId };
  const root = agent.tracer.startSpan(
    `invoke_agent ${BRIEFING_AGENT}`,
    { kind: SpanKind.INTERNAL, attributes: { ...common, 'gen_ai.operation.name': 'invoke_agent' } },
    agent.parent,
  );
  const inRun = trace.setSpan(agent.parent, root);
  const steps: { step: BriefingStep; callId?: string }[] = [
    { step: 'plan' },
    ...Array.from({ length: SEARCHES }, (_, index) => ({ step: 'search_web' as const, callId: `call_${index + 1}` })),
    { step: 'summarize' },
  ];
  try {
    for (const { step, callId } of steps) {
      const tries: BriefingTry[] = [];
      run.calls.push({ step, callId, tries });
      await callWithRetries(agent, inRun, { taskId, step, callId, common }, tries);
    }
    root.setStatus({ code: SpanStatusCode.OK });
  } catch (error) {
    const failed = error instanceof CallFailed;
    run.outcome = failed ? 'failed' : 'stopped';
    root.setAttribute('error.type', failed ? 'call_failed' : 'cancelled');
    root.setStatus({ code: SpanStatusCode.ERROR, message: failed ? error.message : CANCELLED });
  } finally {
    root.end();
  }
  return run;
}

interface CallSpec {
  taskId: string;
  step: BriefingStep;
  callId?: string;
  common: Record<string, string>;
}

/** Tries a call until it answers, fails for good (400), or has been tried BRIEFING_MAX_TRIES times. */
async function callWithRetries(agent: BriefingContext, parent: Context, call: CallSpec, tries: BriefingTry[]) {
  const about = call.callId ? `${call.step}:${call.callId}` : call.step;
  for (let tryNumber = 1; ; tryNumber += 1) {
    const span = startCallSpan(agent.tracer, parent, call);
    let answer: BriefingTry;
    try {
      answer = await simulatedCall(agent, call, about, tryNumber);
    } catch (error) {
      // Stopped mid-call: the try's outcome is unknown, and says so.
      span.setAttribute('error.type', 'cancelled');
      span.setStatus({ code: SpanStatusCode.ERROR, message: CANCELLED });
      span.end();
      throw error;
    }
    tries.push(answer);
    endCallSpan(span, call.step, answer);
    if (answer.status === 200) return;
    if (answer.status === 400 || tryNumber === BRIEFING_MAX_TRIES)
      throw new CallFailed(
        `${about} failed after ${tryNumber} tr${tryNumber === 1 ? 'y' : 'ies'}: HTTP ${answer.status}`,
      );
    // Full jitter: anywhere up to the doubled ceiling, never exactly now (siblings are told apart by start time).
    const ceiling = agent.timing.backoffMs * 2 ** (tryNumber - 1);
    await sleep(1 + Math.floor(chance(agent.seed, 'backoff', call.taskId, about, tryNumber) * ceiling), agent.stopping);
  }
}

function startCallSpan(tracer: Tracer, parent: Context, call: CallSpec): Span {
  if (call.step === 'search_web')
    return tracer.startSpan(
      'execute_tool search_web',
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          ...call.common,
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'search_web',
          'gen_ai.tool.type': 'function',
          'gen_ai.tool.call.id': call.callId!,
        },
      },
      parent,
    );
  // Named after the phase rather than `chat gpt-4o-mini`: plan and summarize are different steps of one run.
  return tracer.startSpan(
    call.step,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        ...call.common,
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': PROVIDER,
        'gen_ai.request.model': BRIEFING_MODEL,
      },
    },
    parent,
  );
}

const STATUS_TEXT = { 400: 'Bad Request', 429: 'Too Many Requests', 503: 'Service Unavailable' } as const;

function endCallSpan(span: Span, step: BriefingStep, answer: BriefingTry): void {
  if (step !== 'search_web' && (answer.inputTokens > 0 || answer.outputTokens > 0)) {
    span.setAttributes({
      'gen_ai.usage.input_tokens': answer.inputTokens,
      'gen_ai.usage.output_tokens': answer.outputTokens,
    });
  }
  if (answer.status !== 200) {
    span.setAttributes({ 'error.type': String(answer.status), 'http.response.status_code': answer.status });
    span.setStatus({ code: SpanStatusCode.ERROR, message: `${answer.status} ${STATUS_TEXT[answer.status]}` });
  }
  span.end();
}

/**
 * The simulated downstream's answer to one try, from the seed: a 503 from the
 * model is a stream cut short (the prompt and part of the answer are billed),
 * a 429 is refused before anything is generated, a 400 is not worth retrying.
 */
async function simulatedCall(
  agent: BriefingContext,
  call: CallSpec,
  about: string,
  tryNumber: number,
): Promise<BriefingTry> {
  const fault = faultFor(agent.seed, call.taskId, about, tryNumber, 'model');
  const latency = chance(agent.seed, 'latency', call.taskId, about, tryNumber) * agent.timing.callMs;
  await sleep(1 + Math.floor(fault === 'slow' ? agent.timing.callMs + latency : latency), agent.stopping);
  const isModel = call.step !== 'search_web';
  const model = isModel
    ? callModel(agent.seed, call.taskId, about, tryNumber, `Briefing ${call.step}`)
    : { inputTokens: 0, outputTokens: 0 };
  switch (fault) {
    case 'transient': {
      const cut = chance(agent.seed, 'cut', call.taskId, about, tryNumber) / 2;
      return { status: 503, inputTokens: model.inputTokens, outputTokens: Math.floor(model.outputTokens * cut) };
    }
    case 'rate_limited':
      return { status: 429, inputTokens: 0, outputTokens: 0 };
    case 'permanent':
      return { status: 400, inputTokens: 0, outputTokens: 0 };
    default:
      // Slow answers still answer; this agent asks for plain text, so there is no malformed output to refuse.
      return { status: 200, inputTokens: model.inputTokens, outputTokens: model.outputTokens };
  }
}
