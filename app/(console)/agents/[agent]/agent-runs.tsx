import Link from 'next/link';
import { LongText } from '@/components/ui/long-text';
import { Moment } from '@/components/ui/time';
import { formatCount } from '@/lib/console/format';
import type { AgentRunSummary } from '@/lib/queries/span-ingest';

/** A traced agent's runs over the window (agent_runs), as the Ingest page counts them; nothing for an agent with none. */
export function AgentRuns({ runs }: { runs: AgentRunSummary | undefined }) {
  if (!runs) return null;
  return (
    <section aria-labelledby="agent-runs-title" className="mt-5 text-[13px]" data-testid="agent-runs">
      <h2 id="agent-runs-title" className="mb-1 text-[13px] font-semibold">
        Its runs, from its spans
      </h2>
      <p>
        {formatCount(runs.runs)} {runs.runs === 1 ? 'run' : 'runs'}, {formatCount(runs.failed)} failed; median{' '}
        {formatCount(runs.medianMs)} ms; the latest began <Moment value={runs.lastRunAt} precision="second" />.{' '}
        <Link href="/ingest" className="text-accent hover:underline">
          All agents&rsquo; runs on the Ingest page
        </Link>
      </p>
      {runs.lastError ? (
        <div className="mt-1 text-[12px] text-danger">
          <span className="text-muted">The latest failure: </span>
          <LongText text={runs.lastError} lines={2} />
        </div>
      ) : null}
    </section>
  );
}
