import { type Context, context, type Span, type Tracer, trace } from '@opentelemetry/api';

/** An agent run's root span (`invoke_agent <name>`) from `startTime`, and the context its model calls start under. */
export function startAgentRun(tracer: Tracer, name: string, startTime: number): { run: Span; inRun: Context } {
  const run = tracer.startSpan(
    `invoke_agent ${name}`,
    { startTime, attributes: { 'gen_ai.operation.name': 'invoke_agent' } },
    context.active(),
  );
  return { run, inRun: trace.setSpan(context.active(), run) };
}
