'use client';

import clsx from 'clsx';
import { usePathname } from 'next/navigation';
import { type MouseEvent, type ReactNode, useEffect, useRef, useState } from 'react';

const MENU_ID = 'console-menu';

function Brand({ className }: { className?: string }) {
  return (
    <div className={clsx('items-center gap-2', className)}>
      <img src="/logo.svg" alt="" width={22} height={22} />
      <span className="text-[15px] font-semibold tracking-tight">Holdfast</span>
    </div>
  );
}

/**
 * The console's frame. From 768 px the sidebar stands beside the page as it always
 * has; below, it folds into a disclosure behind a Menu button in a top bar (in the
 * document just before the menu, so Tab goes from the button into it). Escape closes
 * the menu and gives focus back to the button; following a link closes it.
 * Every column is min-w-0, so a wide table scrolls in its own box instead of
 * widening the page.
 */
export function ConsoleShell({
  sidebar,
  search,
  children,
}: {
  sidebar: ReactNode;
  search: ReactNode;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const pathname = usePathname();
  const [shownPath, setShownPath] = useState(pathname);
  if (pathname !== shownPath) {
    // A navigation by any means (a link, Back, a redirect) closes the menu.
    setShownPath(pathname);
    setOpen(false);
  }

  useEffect(() => {
    if (!open) return;
    function closeOnEscape(event: KeyboardEvent) {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    }
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [open]);

  function closeOnLink(event: MouseEvent<HTMLElement>) {
    // A link to the page already shown does not change the path; close the menu anyway.
    if (event.target instanceof Element && event.target.closest('a')) setOpen(false);
  }

  return (
    <div className="min-w-0 md:flex md:min-h-screen">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-10 focus:rounded focus:bg-surface focus:px-3 focus:py-2"
      >
        Skip to content
      </a>
      <div className="flex items-center gap-3 border-b border-line bg-surface px-3 py-2 md:hidden">
        <button
          ref={button}
          type="button"
          aria-expanded={open}
          aria-controls={MENU_ID}
          onClick={() => setOpen((shown) => !shown)}
          data-testid="menu-button"
          className="flex items-center gap-1.5 rounded-md border border-line px-2.5 py-1 text-[13px] hover:border-accent"
        >
          <svg aria-hidden="true" width="14" height="14" viewBox="0 0 14 14" className="stroke-current">
            <path d={open ? 'M3 3l8 8M11 3l-8 8' : 'M2 3.5h10M2 7h10M2 10.5h10'} strokeWidth="1.5" fill="none" />
          </svg>
          Menu
        </button>
        <Brand className="flex" />
      </div>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: only notices link clicks; the links themselves are the keyboard path. */}
      <aside
        id={MENU_ID}
        onClick={closeOnLink}
        className={clsx(
          open ? 'flex' : 'hidden',
          'flex-col border-b border-line bg-surface md:flex md:w-52 md:shrink-0 md:border-b-0 md:border-r',
        )}
      >
        <Brand className="hidden px-4 py-4 md:flex" />
        {sidebar}
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <div className="border-b border-line px-3 py-2 md:px-6">{search}</div>
        <main id="main" className="min-w-0 flex-1 px-3 py-4 md:px-6 md:py-5">
          {children}
        </main>
      </div>
    </div>
  );
}
