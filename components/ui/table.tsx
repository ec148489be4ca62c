import clsx from 'clsx';
import type { ComponentProps } from 'react';

/**
 * The right edge a row's action column sticks to while the table scrolls sideways:
 * the cell keeps an opaque background (so scrolled cells pass under it) and a line
 * on its left (so it reads as standing above them).
 */
const stickyRight = 'sticky right-0 z-[1] shadow-[inset_1px_0_0_var(--color-line)]';

/**
 * Dense table primitives: numbers right-aligned in tabular figures so columns line up.
 * `stickyLastColumn` keeps every row's last cell (its action) in view at the right edge
 * while a table wider than its box scrolls, so the primary action stays reachable on a
 * phone; `ActionCell` and `ActionHeaderCell` do the same for one column by hand.
 */
export function Table({
  className,
  stickyLastColumn = false,
  ...props
}: ComponentProps<'table'> & { stickyLastColumn?: boolean }) {
  return (
    // Focusable, so a table wider than the screen can be scrolled from the keyboard.
    <div
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard.
      tabIndex={0}
      className="max-w-full overflow-x-auto rounded-lg border border-line bg-surface focus-visible:outline-2 focus-visible:outline-accent"
    >
      <table
        className={clsx(
          'w-full border-collapse text-[13px]',
          stickyLastColumn && [
            '[&_tr>:last-child]:sticky [&_tr>:last-child]:right-0 [&_tr>:last-child]:z-[1]',
            '[&_tr>:last-child]:shadow-[inset_1px_0_0_var(--color-line)] [&_td:last-child]:bg-surface',
          ],
          className,
        )}
        {...props}
      />
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

export function Cell({ numeric, className, ...props }: ComponentProps<'td'> & { numeric?: boolean }) {
  return (
    <td
      className={clsx('border-b border-line px-3 py-1.5', numeric && 'text-right tabular-nums', className)}
      {...props}
    />
  );
}

/** A row's action cell, kept at the table's right edge while the table scrolls sideways. */
export function ActionCell({ className, ...props }: ComponentProps<'td'>) {
  return <Cell className={clsx(stickyRight, 'bg-surface', className)} {...props} />;
}

/** The header above ActionCell, sticking with it. */
export function ActionHeaderCell({ className, ...props }: ComponentProps<'th'>) {
  return <HeaderCell className={clsx(stickyRight, className)} {...props} />;
}
