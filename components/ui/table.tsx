import clsx from 'clsx';
import type { ComponentProps } from 'react';

/** Dense table primitives: numbers right-aligned in tabular figures so columns line up. */
export function Table({ className, ...props }: ComponentProps<'table'>) {
  return (
    // Focusable, so a table wider than the screen can be scrolled from the keyboard.
    <div
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard.
      tabIndex={0}
      className="max-w-full overflow-x-auto rounded-lg border border-line bg-surface focus-visible:outline-2 focus-visible:outline-accent"
    >
      <table className={clsx('w-full border-collapse text-[13px]', className)} {...props} />
    </div>
  );
}

export function HeaderCell({ numeric, className, ...props }: ComponentProps<'th'> & { numeric?: boolean }) {
  return (
    <th
      scope="col"
      className={clsx(
        'border-b border-line bg-surface-raised px-3 py-2 text-[12px] font-medium text-muted',
        numeric ? 'text-right' : 'text-left',
        className,
      )}
      {...props}
    />
  );
}

/**
 * The header of a row-actions column, named for screen readers only. Relative: an sr-only label is placed
 * against its cell, not the page, so it cannot widen a phone's page.
 */
export function ActionsHeaderCell() {
  return (
    <HeaderCell className="relative">
      <span className="sr-only">Actions</span>
    </HeaderCell>
  );
}

export function Cell({ numeric, className, ...props }: ComponentProps<'td'> & { numeric?: boolean }) {
  return (
    <td
      className={clsx('border-b border-line px-3 py-1.5', numeric && 'text-right tabular-nums', className)}
      {...props}
    />
  );
}
