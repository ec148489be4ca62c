import { ReferenceLine } from 'recharts';

/** Something that happened to the step at a bucket: a line across each chart, labelled in a word or two. */
export interface EventMark {
  /** The bucket it falls in, keyed as the chart's buckets are. */
  bucket: string;
  label: string;
  /** Brakes and breakers opening are drawn in the danger colour, their lifting in the ok colour. */
  tone: 'danger' | 'ok' | 'muted';
}

const stroke = { danger: 'var(--danger)', ok: 'var(--ok)', muted: 'var(--muted)' } as const;

/** The marks as reference lines for a chart's children (an array, as recharts reads its children). */
export function eventMarkLines(marks: EventMark[]) {
  return marks.map((mark) => (
    <ReferenceLine
      key={`${mark.bucket}-${mark.label}`}
      x={mark.bucket}
      stroke={stroke[mark.tone]}
      strokeDasharray="3 3"
      ifOverflow="extendDomain"
      label={{ value: mark.label, position: 'insideTopLeft', fontSize: 10, fill: stroke[mark.tone] }}
    />
  ));
}
