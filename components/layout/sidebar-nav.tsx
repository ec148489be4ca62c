'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import clsx from 'clsx';
import { consoleAreas } from '@/lib/navigation';
import type { AttentionCounts } from '@/lib/queries/attention';

/** How often the counts are read again (the pages' own figures poll on their own). */
const ATTENTION_REFRESH_MS = 30_000;

async function fetchAttention(): Promise<AttentionCounts> {
  const response = await fetch('/api/console/attention', { cache: 'no-store' });
  if (!response.ok) throw new Error(`The server answered ${response.status} while counting what waits`);
  return (await response.json()) as AttentionCounts;
}

/**
 * A count beside a link, read out with what it counts; nothing when there is
 * nothing. It sits over the link's right end, outside the link, so the link's
 * name stays its label (voice control and find-by-name keep working) and a
 * click on the count still reaches the link.
 */
function Badge({ count, what, tone }: { count: number | undefined; what: string; tone: 'danger' | 'muted' }) {
  if (!count) return null;
  return (
    <span
      className={clsx(
        'pointer-events-none absolute top-1/2 right-2 -translate-y-1/2 rounded-full px-1.5 text-[11px] font-medium tabular-nums',
        tone === 'danger' ? 'bg-danger text-on-accent' : 'bg-surface-raised text-ink',
      )}
      data-testid={`sidebar-count-${what.replaceAll(' ', '-')}`}
    >
      {count > 999 ? '999+' : count}
      <span className="sr-only"> {what}</span>
    </span>
  );
}

function isActive(pathname: string, href: string): boolean {
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
}

/**
 * The console's areas, with counts of what waits beside three of them: alerts
 * firing, the person's open holds, dead letters waiting. The layout renders
 * the counts (again after each action); they are read again every 30 seconds.
 */
export function SidebarNav({ initialCounts }: { initialCounts?: AttentionCounts }) {
  const pathname = usePathname();
  const queryClient = useQueryClient();
  const { data: counts } = useQuery({
    queryKey: ['attention'],
    queryFn: fetchAttention,
    initialData: initialCounts,
    refetchInterval: ATTENTION_REFRESH_MS,
  });
  // An action (a hold cleared, an alert acknowledged) renders the layout again with fresh counts: they replace
  // the polled ones at once, so a badge agrees with the list it sits beside instead of lagging up to 30 seconds.
  useEffect(() => {
    if (initialCounts) queryClient.setQueryData(['attention'], initialCounts);
  }, [initialCounts, queryClient]);
  return (
    <nav aria-label="Console" className="px-2">
      <ul className="flex flex-col gap-0.5">
        {consoleAreas.map((area) => {
          const active = isActive(pathname, area.href);
          return (
            <li key={area.href}>
              <div className="relative">
                <Link
                  href={area.href}
                  aria-current={active ? 'page' : undefined}
                  className={clsx(
                    'block rounded-md px-3 py-1.5 pr-12 text-[13px]',
                    active
                      ? 'bg-accent-soft font-medium text-accent'
                      : 'text-muted hover:bg-surface-raised hover:text-ink',
                  )}
                >
                  {area.label}
                </Link>
                {area.href === '/alerts' ? <Badge count={counts?.firingAlerts} what="firing" tone="danger" /> : null}
                {area.href === '/dead-letters' ? (
                  <Badge count={counts?.pendingDeadLetters} what="waiting" tone="muted" />
                ) : null}
              </div>
              {area.href === '/agents' ? (
                // The agents an owner answers for, one click away: theirs and their teams'.
                <Link
                  href="/agents?owner=mine"
                  className="block rounded-md py-1 pr-12 pl-6 text-[12px] text-muted hover:bg-surface-raised hover:text-ink"
                >
                  My agents
                </Link>
              ) : null}
              {area.href === '/holds' ? (
                // An owner's first question, one click away: the holds they or their teams own.
                <div className="relative">
                  <Link
                    href="/holds?mine=1"
                    className="block rounded-md py-1 pr-12 pl-6 text-[12px] text-muted hover:bg-surface-raised hover:text-ink"
                  >
                    My holds
                  </Link>
                  <Badge count={counts?.myOpenHolds} what="open" tone="muted" />
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
