import Link from 'next/link';
import type { Decision } from '@holdfast/engine/core';
import type { PauseView } from '@/lib/queries/pauses';
import { PauseForm } from '../../../pauses/pause-forms';
import { PausesTable } from '../../../pauses/pauses-table';

const HEADING = 'step-pauses-heading';

/**
 * A step's pauses: those holding or ramping it now (its own and its agent's),
 * with the resume action; otherwise the action to pause it. Downstream pauses
 * are listed on the Pauses page, which also pauses any target.
 */
export function StepPauses({
  names,
  pauses,
  pausing,
  tracesOnly = false,
}: {
  names: { agent: string; step: string };
  pauses: PauseView[];
  pausing: Decision;
  /** The step reaches Holdfast only as spans: its agent asks nothing before it acts, so a pause would hold nothing. */
  tracesOnly?: boolean;
}) {
  const holding = pauses.some((pause) => pause.state === 'paused');
  return (
    <section
      aria-labelledby={HEADING}
      className={`mb-5 rounded-lg border px-4 py-3 ${holding ? 'border-danger bg-danger-soft' : 'border-line bg-surface'}`}
      data-testid="step-pauses"
    >
      <h2 id={HEADING} tabIndex={-1} className="mb-1 text-[13px] font-semibold focus:outline-none">
        {holding ? 'This step is paused' : pauses.length > 0 ? 'This step is ramping up after a pause' : 'Pause'}
      </h2>
      {pauses.length > 0 ? (
        <PausesTable
          pauses={pauses}
          resume={pausing.allowed}
          headingId={HEADING}
          testId="step-pauses-table"
          caption="Pauses covering this step"
        />
      ) : tracesOnly ? (
        <p className="mb-2 text-[12px] text-muted" data-testid="step-pause-needs-protocol">
          Not paused, and a pause here would hold nothing: this step reaches Holdfast only as spans, after its work is
          done. To pause it from here, run it through the step protocol, a client or an adapter (see below).
        </p>
      ) : (
        <p className="mb-2 text-[12px] text-muted">
          Not paused. Pausing makes every begin of this step (or of its agent) wait until resumed; see{' '}
          <Link href="/pauses" className="text-accent underline">
            Pauses
          </Link>{' '}
          for downstreams and everything paused now.
        </p>
      )}
      {pauses.length === 0 && pausing.allowed && !tracesOnly ? <PauseForm step={names} headingId={HEADING} /> : null}
      {pausing.allowed || tracesOnly ? null : <p className="text-[12px] text-muted">Pausing: {pausing.reason}.</p>}
    </section>
  );
}
