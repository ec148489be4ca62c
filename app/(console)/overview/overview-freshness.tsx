'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Moment } from '@/components/ui/time';
import type { TimeWindowName } from '@holdfast/protocol/time-window';
import { overviewQuery } from './overview-query';
import { STEP_STATS_REFRESH_MS, stepStatsQuery } from './step-stats-query';

/** Three refreshes missed: the figures on screen may no longer be true. */
export const STALE_AFTER_MS = 3 * STEP_STATS_REFRESH_MS;

/** "updated just now", "updated 12 s ago", "updated 3 min ago". */
export function updatedAgo(updatedAt: number, now: number): string {
  const seconds = Math.max(0, Math.floor((now - updatedAt) / 1000));
  if (seconds < 2) return 'updated just now';
  if (seconds < 120) return `updated ${seconds} s ago`;
  return `updated ${Math.floor(seconds / 60)} min ago`;
}

/** The time now, ticking each second; null until mounted (the server's clock is not the browser's). */
function useNow(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * How fresh the Overview is: "updated N s ago", ticking on screen. Screen
 * readers are told only when it matters: the polite region stays empty while
 * the figures refresh as they should, and speaks once when they go stale or a
 * refresh fails (its text does not change each second, so it is said once).
 */
export function OverviewFreshness({ window }: { window: TimeWindowName }) {
  const figures = useQuery(overviewQuery(window));
  const steps = useQuery(stepStatsQuery(window));
  const now = useNow();
  const loaded = [figures.dataUpdatedAt, steps.dataUpdatedAt].filter((at) => at > 0);
  // The older of the two: the page is only as fresh as its stalest part.
  const updatedAt = loaded.length ? Math.min(...loaded) : null;
  const failure = figures.error ?? steps.error;
  const stale = updatedAt !== null && now !== null && now - updatedAt > STALE_AFTER_MS;

  return (
    <div className="text-[12px] text-muted" data-testid="overview-freshness">
      {/* Not a live region: read when reached, never announced each second. */}
      <span data-testid="updated-ago">
        {updatedAt === null || now === null
          ? `Live, refreshed every ${STEP_STATS_REFRESH_MS / 1000} s`
          : `Live, ${updatedAgo(updatedAt, now)}`}
      </span>
      <span role="status" data-testid="refresh-status" className={stale || failure ? 'ml-2 text-warn' : 'sr-only'}>
        {failure || stale ? (
          <>
            {failure ? `Refresh failed (${failure.message}); ` : `Not refreshed for over ${STALE_AFTER_MS / 1000} s; `}
            showing figures from{' '}
            {updatedAt === null ? 'no time yet' : <Moment value={new Date(updatedAt)} precision="second" />}
          </>
        ) : null}
      </span>
    </div>
  );
}
