import Link from 'next/link';
import type { StepSource } from '@/lib/queries/step-sources';
import { SourceBadges } from '../../source-badges';

/** How this step's attempts reach Holdfast, and, for a step seen only through spans, what that can and cannot do. */
export function StepSources({ sources }: { sources: StepSource[] }) {
  const tracesOnly = sources.length > 0 && sources.every(({ source }) => source === 'traces');
  return (
    <section aria-labelledby="step-sources-title" className="mb-4 text-[13px]" data-testid="step-sources">
      <p className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span id="step-sources-title" className="font-medium">
          Reaches Holdfast through
        </span>
        {sources.length > 0 ? (
          <SourceBadges sources={sources} />
        ) : (
          <span className="text-muted">not recorded yet (attempts before sources were kept, or not rolled up yet)</span>
        )}
      </p>
      {tracesOnly ? <SeeVersusControl /> : null}
    </section>
  );
}

const docPath = 'rounded bg-line/40 px-1 font-mono text-[12px] [overflow-wrap:anywhere]';

/**
 * Spans arrive after the work is done: they show it, they cannot steer it (docs/agents/opentelemetry.md, What
 * spans show, and what they cannot do). The docs are not served by the console, so they are named by their path
 * in the repository; the step protocol's endpoints are in the console's API reference.
 */
function SeeVersusControl() {
  return (
    <aside
      aria-labelledby="see-versus-control-title"
      className="mt-2 max-w-prose rounded-md border border-line bg-surface px-3 py-2 leading-relaxed"
      data-testid="see-versus-control"
    >
      <h2 id="see-versus-control-title" className="text-[13px] font-semibold">
        What you see vs what you control
      </h2>
      <p className="mt-1">
        This step reaches Holdfast only as OpenTelemetry spans. Spans give <strong>visibility</strong>: attempts,
        retries, error classes, latency and cost, here and in <code className={docPath}>/metrics</code>. They arrive
        after the work is done, so they <strong>control</strong> nothing: holds, idempotency keys, retry budgets, retry
        pools and redrive need the agent to ask Holdfast before it acts.
      </p>
      <p className="mt-1">For that, run the step through one of:</p>
      <ul className="mt-1 list-disc pl-5">
        <li>
          the step protocol: begin before each attempt, finish after (
          <Link href="/settings/api#beginStep" className="text-accent hover:underline">
            its endpoints in the API reference
          </Link>
          ; <code className={docPath}>docs/agents/step-protocol.md</code>)
        </li>
        <li>
          a client, TypeScript or Python, whose <code className={docPath}>runStep</code> does both (
          <code className={docPath}>docs/agents/clients.md</code>)
        </li>
      </ul>
    </aside>
  );
}
