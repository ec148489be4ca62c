'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import clsx from 'clsx';
import { consoleAreas } from '@/lib/navigation';

function isActive(pathname: string, href: string): boolean {
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`);
}

export function SidebarNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Console" className="px-2">
      <ul className="flex flex-col gap-0.5">
        {consoleAreas.map((area) => {
          const active = isActive(pathname, area.href);
          return (
            <li key={area.href}>
              <Link
                href={area.href}
                aria-current={active ? 'page' : undefined}
                className={clsx(
                  'block rounded-md px-3 py-1.5 text-[13px]',
                  active
                    ? 'bg-accent-soft font-medium text-accent'
                    : 'text-muted hover:bg-surface-raised hover:text-ink',
                )}
              >
                {area.label}
              </Link>
              {area.href === '/holds' ? (
                // An owner's first question, one click away: the holds they or their teams own.
                <Link
                  href="/holds?mine=1"
                  className="block rounded-md py-1 pr-3 pl-6 text-[12px] text-muted hover:bg-surface-raised hover:text-ink"
                >
                  My holds
                </Link>
              ) : null}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
