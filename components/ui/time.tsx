'use client';

import { createContext, type ReactNode, useContext, useEffect, useState } from 'react';
import { formatAge, formatUtc } from '@/lib/console/format';
import { formatLocal, TIME_ZONE_COOKIE, type TimeZonePreference } from '@/lib/console/time-zone';

const ZoneContext = createContext<{ zone: TimeZonePreference; setZone: (zone: TimeZonePreference) => void }>({
  zone: 'utc',
  setZone: () => {},
});

/** The viewer's choice of zone for every time the console writes (the layout reads it from the cookie). */
export function TimeZoneProvider({ initialZone, children }: { initialZone: TimeZonePreference; children: ReactNode }) {
  const [zone, setZone] = useState(initialZone);
  return <ZoneContext.Provider value={{ zone, setZone }}>{children}</ZoneContext.Provider>;
}

export function useTimeZone() {
  return useContext(ZoneContext);
}

/**
 * The server knows no viewer's zone, so the first render (server and hydration)
 * is always UTC; local times appear once mounted in the browser.
 */
function useMounted(): boolean {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return mounted;
}

/** Both readings of a moment, for a hover: exact to the second. */
function exactBoth(moment: Date, mounted: boolean): string {
  const utc = formatUtc(moment, 'second');
  return mounted ? `${utc}\n${formatLocal(moment, 'second')}` : utc;
}

/** A moment, in the chosen zone; hovering shows it to the second in UTC and local time. */
export function Moment({
  value,
  precision = 'minute',
}: {
  value: Date | string | null;
  precision?: 'minute' | 'second';
}) {
  const { zone } = useTimeZone();
  const mounted = useMounted();
  if (value === null) return <>—</>;
  const moment = typeof value === 'string' ? new Date(value) : value;
  const text = zone === 'local' && mounted ? formatLocal(moment, precision) : formatUtc(moment, precision);
  return (
    <time dateTime={moment.toISOString()} title={exactBoth(moment, mounted)}>
      {text}
    </time>
  );
}

/** How long ago ("12 min"), with the exact moment on hover. */
export function Age({ since, now }: { since: Date | string; now: Date | string }) {
  const mounted = useMounted();
  const moment = typeof since === 'string' ? new Date(since) : since;
  return (
    <time dateTime={moment.toISOString()} title={exactBoth(moment, mounted)}>
      {formatAge(moment, typeof now === 'string' ? new Date(now) : now)}
    </time>
  );
}

/** Switches the console between UTC and local time; kept in a cookie for a year. */
export function TimeZoneToggle() {
  const { zone, setZone } = useTimeZone();
  const choose = (chosen: TimeZonePreference) => {
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Safari and Firefox.
    document.cookie = `${TIME_ZONE_COOKIE}=${chosen}; path=/; max-age=31536000; samesite=lax`;
    setZone(chosen);
  };
  return (
    <button
      type="button"
      onClick={() => choose(zone === 'utc' ? 'local' : 'utc')}
      data-testid="time-zone-toggle"
      aria-pressed={zone === 'local'}
      className="w-full rounded-md px-3 py-1.5 text-left text-[13px] text-muted hover:bg-surface-raised hover:text-ink"
      title="Write times in UTC or in this browser's time zone"
    >
      {zone === 'utc' ? 'Times in UTC' : 'Times in local time'}
    </button>
  );
}

/** When a row changed and who changed it, stacked: the moment on one line, a long address wrapping under it. */
export function MomentBy({
  at,
  by,
  className = 'min-w-0',
  mutedBy = false,
}: {
  at: Date | string | null;
  by: string;
  className?: string;
  mutedBy?: boolean;
}) {
  return (
    <span className={className}>
      <span className="block whitespace-nowrap">
        <Moment value={at} />
      </span>
      <span className={`block [overflow-wrap:anywhere] ${mutedBy ? 'text-muted' : ''}`}>{by}</span>
    </span>
  );
}
