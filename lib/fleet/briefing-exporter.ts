import { ROOT_CONTEXT } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { BRIEFING_AGENT, BRIEFING_TIMING, type BriefingRun, type BriefingTiming, runBriefing } from './briefing-agent';

/**
 * Runs the briefing agent (briefing-agent.ts) with the OpenTelemetry SDK set up
 * as any Node agent would set it up: a tracer provider of its own with a batch
 * processor and the OTLP/HTTP protobuf exporter, pointed at a running
 * Holdfast's /v1/traces with a token. Nothing is registered globally, so the
 * Next server in the same process keeps its own tracing to itself.
 */
export interface BriefingAgentOptions {
  /** The running Holdfast, on this machine: the exporter sends to 127.0.0.1 only. */
  holdfastUrl: string;
  /** A token with the traces scope (the fleet's is limited to the briefing agent). */
  token: string;
  seed: number;
  /** A new briefing this often (one at a time); 0 runs none by itself, only those asked for with runTask. */
  everyMs: number;
  timing?: BriefingTiming;
  /** How long ended spans wait in the batch processor before they are exported (default 1 s); a stop exports them all. */
  exportDelayMs?: number;
  log?: (line: string) => void;
}

export interface BriefingAgent {
  /** Runs one briefing now, under the given task id (also its conversation id). */
  runTask: (taskId: string) => Promise<BriefingRun>;
  /** Stops: the briefing in flight ends at once, then every ended span is exported before this resolves. */
  stop: () => Promise<void>;
}

/**
 * How long an export may take, retries on 429 and 503 included: a stop waits for the last one. The
 * batch processor's own default; a busy machine (a test run on two cores) can take seconds to answer.
 */
const EXPORT_TIMEOUT_MS = 30_000;

/** The URL of /v1/traces on 127.0.0.1, or an error naming why the given base is not one. */
export function loopbackTracesUrl(holdfastUrl: string): URL {
  const url = new URL('/v1/traces', holdfastUrl);
  // `localhost` is this machine too; said as the address so that no resolver is asked.
  if (url.hostname === 'localhost') url.hostname = '127.0.0.1';
  if (url.hostname !== '127.0.0.1' || url.protocol !== 'http:')
    throw new Error(`the briefing agent exports to http://127.0.0.1 only, not to ${url.origin}`);
  return url;
}

export function startBriefingAgent(options: BriefingAgentOptions): BriefingAgent {
  const log = options.log ?? (() => {});
  const exporter = new OTLPTraceExporter({
    url: loopbackTracesUrl(options.holdfastUrl).href,
    headers: { authorization: `Bearer ${options.token}` },
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': BRIEFING_AGENT }),
    // Exported every second by default, so a briefing shows on the console moments after it ends.
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: options.exportDelayMs ?? 1_000,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  const tracer = provider.getTracer('holdfast-demo-briefing');
  const stopping = new AbortController();
  const running = new Set<Promise<BriefingRun>>();
  const timing = options.timing ?? BRIEFING_TIMING;

  const runTask = (taskId: string) => {
    const run = runBriefing(
      { tracer, parent: ROOT_CONTEXT, seed: options.seed, timing, stopping: stopping.signal },
      taskId,
    );
    running.add(run);
    void run.finally(() => running.delete(run));
    return run;
  };

  let sequence = 0;
  const timer =
    options.everyMs > 0
      ? setInterval(() => {
          if (running.size > 0 || stopping.signal.aborted) return; // one briefing at a time
          sequence += 1;
          runTask(`demo-briefing-${Date.now().toString(36)}-${sequence}`).catch((error: unknown) =>
            log(`Briefing agent: ${String(error)}`),
          );
        }, options.everyMs)
      : undefined;

  return {
    runTask,
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await Promise.allSettled([...running]);
      // Flushes what the batch processor still holds, then shuts the exporter down.
      await provider.shutdown();
    },
  };
}
