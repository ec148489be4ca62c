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
  deployed: { mark: 'new version', tone: 'muted', sentence: 'A new version of the agent sent its first spans' },
};

/**
 * The events as marks on the charts, one per bucket and kind; on the Overview a mark names what it happened to,
 * or how many when several share a bucket (the list under the charts names each).
 */
export function eventMarks(events: StepEvent[], unit: BucketUnit): EventMark[] {
  const marks = new Map<string, { bucket: string; kind: StepEventKind; subjects: Set<string> }>();
  for (const event of events) {
    const bucket = bucketOf(new Date(event.at), unit);
    const key = `${bucket}/${event.kind}`;
    const mark = marks.get(key) ?? { bucket, kind: event.kind, subjects: new Set<string>() };
    if (event.subject) mark.subjects.add(event.subject);
    marks.set(key, mark);
  }
  return [...marks.values()].map(({ bucket, kind, subjects }) => {
    const [only] = subjects;
    const label =
      subjects.size === 0
        ? said[kind].mark
        : subjects.size === 1
          ? `${said[kind].mark}: ${only}`
          : `${said[kind].mark} ×${subjects.size}`;
    return { bucket, label, tone: said[kind].tone };
  });
}

/**
 * What happened in the window, in words: the marks on the charts, for a reader and a screen reader. `fleet`: the
 * Overview's list, each event naming its agent or step.
 */
export function StepEvents({ events, fleet = false }: { events: StepEvent[]; fleet?: boolean }) {
  const id = fleet ? 'fleet-events-heading' : 'step-events-heading';
  return (
    <section
      aria-labelledby={id}
      className="mt-4 mb-5 text-[13px]"
      data-testid={fleet ? 'fleet-events' : 'step-events'}
    >
      <h2 id={id} className="mb-1 text-[13px] font-semibold">
        What happened in this window
      </h2>
      {events.length === 0 ? (
        <p className="text-muted">
          {fleet
            ? 'No pause, resume, breaker opening or closing, or new agent version.'
            : 'No pause, resume, breaker change, policy change, redrive or new agent version.'}
        </p>
      ) : (
        <ol className="flex flex-col gap-0.5">
          {events.map((event) => (
            <li key={`${event.at}-${event.kind}-${event.detail}`} data-testid={`step-event-${event.kind}`}>
              <span className="tabular-nums text-muted">
                <Moment value={event.at} precision="second" />
              </span>{' '}
              {event.subject ? (
                <span className="font-mono text-[12px] [overflow-wrap:anywhere]">{event.subject}: </span>
              ) : null}
              {said[event.kind].sentence}
              {event.detail ? <span className="text-muted [overflow-wrap:anywhere]"> ({event.detail})</span> : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
