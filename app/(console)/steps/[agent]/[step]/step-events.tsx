import type { EventMark } from '@/components/charts/event-marks';
import { Moment } from '@/components/ui/time';
import type { StepEvent, StepEventKind } from '@/lib/queries/step-events';
import { type BucketUnit, bucketOf } from '@holdfast/protocol/time-window';

/** Each kind of event in a word or two (the mark's label) and in a sentence (the list's). */
const said: Record<StepEventKind, { mark: string; tone: EventMark['tone']; sentence: string }> = {
  paused: { mark: 'paused', tone: 'danger', sentence: 'Paused' },
  resumed: { mark: 'resumed', tone: 'ok', sentence: 'Resumed, all at once' },
  ramping: { mark: 'ramp', tone: 'ok', sentence: 'Resumed with a ramp' },
  ramp_ended: { mark: 'ramp done', tone: 'muted', sentence: 'The ramp ended: begins no longer limited' },
  breaker_opened: { mark: 'breaker open', tone: 'danger', sentence: 'The breaker opened' },
  breaker_reopened: { mark: 'reopened', tone: 'danger', sentence: 'The breaker opened again after a probe failed' },
  breaker_probing: { mark: 'probing', tone: 'muted', sentence: 'The breaker let a probe through' },
  breaker_closed: { mark: 'breaker closed', tone: 'ok', sentence: 'The breaker closed' },
  policy_changed: { mark: 'policy', tone: 'muted', sentence: 'The retry policy was changed' },
  redriven: { mark: 'redrive', tone: 'muted', sentence: 'Dead letters of this step were redriven' },
};

/** The events as marks on the charts, one per bucket and kind. */
export function eventMarks(events: StepEvent[], unit: BucketUnit): EventMark[] {
  const seen = new Set<string>();
  return events.flatMap((event) => {
    const bucket = bucketOf(new Date(event.at), unit);
    const key = `${bucket}/${event.kind}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ bucket, label: said[event.kind].mark, tone: said[event.kind].tone }];
  });
}

/** What happened to the step in the window, in words: the marks on the charts, for a reader and a screen reader. */
export function StepEvents({ events }: { events: StepEvent[] }) {
  return (
    <section aria-labelledby="step-events-heading" className="mb-5 text-[13px]" data-testid="step-events">
      <h2 id="step-events-heading" className="mb-1 text-[13px] font-semibold">
        What happened in this window
      </h2>
      {events.length === 0 ? (
        <p className="text-muted">No pause, resume, breaker change, policy change or redrive.</p>
      ) : (
        <ol className="flex flex-col gap-0.5">
          {events.map((event) => (
            <li key={`${event.at}-${event.kind}-${event.detail}`} data-testid={`step-event-${event.kind}`}>
              <span className="tabular-nums text-muted">
                <Moment value={event.at} precision="second" />
              </span>{' '}
              {said[event.kind].sentence}
              {event.detail ? <span className="text-muted [overflow-wrap:anywhere]"> ({event.detail})</span> : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
