import { Moment } from '@/components/ui/time';
import type { BreakerEventView, BreakerView } from '@/lib/queries/breakers';
import { breakerStateLabel, openedBecause } from '../../../pauses/breakers-table';

const eventLabel = {
  opened: 'Opened',
  probing: 'Probing (half-open)',
  closed: 'Closed: a probe got through',
  reopened: 'Reopened: a probe failed',
} as const;

/** The step's circuit breaker: its state now, and its latest changes. */
export function StepBreaker({ breaker, history }: { breaker: BreakerView | undefined; history: BreakerEventView[] }) {
  const open = breaker !== undefined && breaker.state !== 'closed';
  return (
    <section
      aria-labelledby="step-breaker-heading"
      className={`mb-5 rounded-lg border px-4 py-3 ${open ? 'border-danger bg-danger-soft' : 'border-line bg-surface'}`}
      data-testid="step-breaker"
    >
      <h2 id="step-breaker-heading" className="text-[13px] font-semibold">
        Circuit breaker: {breakerStateLabel[breaker?.state ?? 'closed']}
      </h2>
      <p className="text-[12px] text-muted">
        {breaker === undefined
          ? 'It has never opened: this step’s attempts have not failed as their downstream failing often enough.'
          : breaker.state === 'open'
            ? `Begins wait (CIRCUIT_OPEN): ${openedBecause(breaker)}. The next probe runs at `
            : breaker.state === 'half_open'
              ? 'Probes are running: the first to get through closes it.'
              : 'Begins run.'}
        {breaker?.state === 'open' && breaker.probeAt ? (
          <>
            <Moment value={breaker.probeAt} precision="second" />.
          </>
        ) : null}
      </p>
      {history.length > 0 ? (
        <ol className="mt-2 space-y-0.5 text-[12px]" aria-label="Latest changes" data-testid="step-breaker-history">
          {history.map((event) => (
            <li key={`${event.at}-${event.event}`}>
              <Moment value={event.at} precision="second" /> · {eventLabel[event.event]}
              {event.event === 'opened' && openedBecause(event) ? ` (${openedBecause(event)})` : ''}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
