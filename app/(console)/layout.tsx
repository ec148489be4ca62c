import { cookies } from 'next/headers';
import type { ReactNode } from 'react';
import { InsecureDemoBanner } from '@/components/layout/insecure-demo-banner';
import { SidebarNav } from '@/components/layout/sidebar-nav';
import { SignedInPerson } from '@/components/layout/signed-in-person';
import { signOut } from '@/app/sign-in/actions';
import { ThemeToggle } from '@/components/layout/theme-toggle';
import { TimeZoneProvider, TimeZoneToggle } from '@/components/ui/time';
import { ToastProvider } from '@/components/ui/toast';
import { parseTimeZonePreference, TIME_ZONE_COOKIE } from '@/lib/console/time-zone';
import { requirePerson } from '@/lib/server/session';
import { parseThemePreference, THEME_COOKIE } from '@/lib/theme';

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const person = await requirePerson();
  const cookieJar = await cookies();
  const theme = parseThemePreference(cookieJar.get(THEME_COOKIE)?.value);
  const zone = parseTimeZonePreference(cookieJar.get(TIME_ZONE_COOKIE)?.value);
  return (
    <TimeZoneProvider initialZone={zone}>
      <InsecureDemoBanner />
      <div className="flex min-h-screen">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-10 focus:rounded focus:bg-surface focus:px-3 focus:py-2"
        >
          Skip to content
        </a>
        <aside className="flex w-52 shrink-0 flex-col border-r border-line bg-surface">
          <div className="flex items-center gap-2 px-4 py-4">
            <img src="/logo.svg" alt="" width={22} height={22} />
            <span className="text-[15px] font-semibold tracking-tight">Holdfast</span>
          </div>
          <SidebarNav />
          <div className="mt-auto border-t border-line py-2">
            <SignedInPerson person={person} signOut={signOut} />
            <div className="px-2">
              <ThemeToggle initialTheme={theme} />
              <TimeZoneToggle />
            </div>
          </div>
        </aside>
        <main id="main" className="min-w-0 flex-1 px-6 py-5">
          <ToastProvider>{children}</ToastProvider>
        </main>
      </div>
    </TimeZoneProvider>
  );
}
