import { cookies } from 'next/headers';
import type { ReactNode } from 'react';
import { ConsoleShell } from '@/components/layout/console-shell';
import { InsecureDemoBanner } from '@/components/layout/insecure-demo-banner';
import { SidebarNav } from '@/components/layout/sidebar-nav';
import { SignedInPerson } from '@/components/layout/signed-in-person';
import { signOut } from '@/app/sign-in/actions';
import { ThemeToggle } from '@/components/layout/theme-toggle';
import { SearchBox } from '@/components/ui/search-box';
import { TimeZoneProvider, TimeZoneToggle } from '@/components/ui/time';
import { ToastProvider } from '@/components/ui/toast';
import { parseTimeZonePreference, TIME_ZONE_COOKIE } from '@/lib/console/time-zone';
import { requirePerson } from '@/lib/server/session';
import { readConsole } from '@/lib/server/read-source/read-console';
import { getAttentionCounts } from '@/lib/queries/attention';
import { ownersOf } from '@holdfast/engine/core';
import { parseThemePreference, THEME_COOKIE } from '@/lib/theme';

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const person = await requirePerson();
  const cookieJar = await cookies();
  const theme = parseThemePreference(cookieJar.get(THEME_COOKIE)?.value);
  const zone = parseTimeZonePreference(cookieJar.get(TIME_ZONE_COOKIE)?.value);
  // The sidebar's first counts; it polls for them after. A database that cannot answer leaves them out.
  const counts = await readConsole((db) => getAttentionCounts(db, ownersOf(person))).then(
    ({ value }) => value,
    () => undefined,
  );
  return (
    <TimeZoneProvider initialZone={zone}>
      <InsecureDemoBanner />
      <ConsoleShell
        search={<SearchBox shortcut className="max-w-xl" />}
        sidebar={
          <>
            <SidebarNav initialCounts={counts} />
            <div className="mt-auto border-t border-line py-2">
              <SignedInPerson person={person} signOut={signOut} />
              <div className="px-2">
                <ThemeToggle initialTheme={theme} />
                <TimeZoneToggle />
              </div>
            </div>
          </>
        }
      >
        <ToastProvider>{children}</ToastProvider>
      </ConsoleShell>
    </TimeZoneProvider>
  );
}
