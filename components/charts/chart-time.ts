'use client';

import { useEffect, useState } from 'react';
import { useTimeZone } from '@/components/ui/time';
import { formatLocal, localZoneName } from '@/lib/console/time-zone';
import { type BucketUnit, bucketLengthMs } from '@holdfast/protocol/time-window';

export type { BucketUnit };

const utcText = (moment: Date) => moment.toISOString().slice(0, 16).replace('T', ' ');

/**
 * How a chart writes its buckets: hours and minutes in the viewer's chosen zone (UTC until
 * mounted, as the server cannot know the browser's zone), days always as UTC
 * days, because that is how they are summed. The axis names its zone; the
 * tooltip gives the bucket's exact start and end.
 */
export function useBucketTime(unit: BucketUnit) {
  const { zone } = useTimeZone();
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const local = zone === 'local' && mounted && unit !== 'day';
  return {
    axisLabel: unit === 'day' ? 'Day (UTC)' : `Time (${local ? localZoneName() : 'UTC'})`,
    tick: (iso: string) => bucketTick(iso, unit, local),
    tooltipLabel: (iso: string) => bucketSpan(iso, unit, local),
  };
}

/**
 * A short tick: "14:05" for five minutes (an hour's window needs no date), "11-30 14:15" for a quarter hour or
 * an hour, "11-30" for a day.
 */
export function bucketTick(iso: string, unit: BucketUnit, local: boolean): string {
  if (unit === 'day') return iso.slice(5, 10);
  // "2026-11-30 15:00 UTC+1" -> "11-30 15:00"
  const dateAndTime = local ? formatLocal(new Date(iso)).slice(5, 16) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
  return unit === '5min' || unit === '1min' ? dateAndTime.slice(6) : dateAndTime;
}

/** The bucket's exact span: "2026-11-30 14:00 – 14:05 UTC", or "2026-11-30, 00:00 – 24:00 UTC". */
export function bucketSpan(iso: string, unit: BucketUnit, local: boolean): string {
  const start = new Date(iso);
  if (Number.isNaN(start.getTime())) return iso;
  if (unit === 'day') return `${iso.slice(0, 10)}, 00:00 – 24:00 UTC`;
  const end = new Date(start.getTime() + bucketLengthMs[unit]);
  if (!local) return `${utcText(start)} – ${utcText(end).slice(11)} UTC`;
  const [from, to] = [formatLocal(start), formatLocal(end)];
  // formatLocal ends with the zone: "2026-11-30 15:00 UTC+1".
  return `${from.slice(0, 16)} – ${to.slice(11, 16)} ${localZoneName(start)}`;
}
