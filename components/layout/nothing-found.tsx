import Link from 'next/link';
import type { ReactNode } from 'react';
import { SearchBox } from '@/components/ui/search-box';
import { consoleAreas } from '@/lib/navigation';

/** Where someone who followed a dead end most likely wants to go next. */
const mainAreas = new Set(['/', '/steps', '/holds', '/dead-letters', '/keys', '/audit']);

/**
 * The console's "nothing here": for an unknown address or id (the 404 page) and for a
 * search that found nothing. It offers the search box and the main areas, so the way
 * on is one step away.
 */
export function NothingFound({
  title,
  children,
  searchTerm,
}: {
  title: string;
  children: ReactNode;
  searchTerm?: string;
}) {
  return (
    <section data-testid="nothing-found" className="max-w-2xl">
      <h1 className="text-lg font-semibold tracking-tight [overflow-wrap:anywhere]">{title}</h1>
      <div className="mt-1 text-[13px] text-muted">{children}</div>
      <SearchBox defaultValue={searchTerm} testId="nothing-found-search" label="Search again" className="mt-4" />
      <nav aria-label="Main areas" className="mt-5">
        <h2 className="mb-1.5 text-[12px] font-medium text-muted">Or go to</h2>
        <ul className="flex flex-wrap gap-x-4 gap-y-1.5 text-[13px]">
          {consoleAreas
            .filter((area) => mainAreas.has(area.href))
            .map((area) => (
              <li key={area.href}>
                <Link href={area.href} className="text-accent hover:underline">
                  {area.label}
                </Link>
              </li>
            ))}
        </ul>
      </nav>
    </section>
  );
}
