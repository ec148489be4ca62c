/**
 * Below 768 px a table's rows stack: each row becomes a block and each cell a
 * line led by its column's name (the cell's `data-label`), so a row's action
 * sits under its data instead of past the right edge of a scrolling box. One
 * DOM for both widths: test ids and labels stay unique.
 */
export const stacked = {
  table: 'max-md:block',
  head: 'max-md:hidden',
  body: 'max-md:block',
  row: 'max-md:block max-md:border-b max-md:border-line max-md:px-1 max-md:py-2',
  /** A cell of data: its column's name before it, from `data-label`. */
  cell: 'max-md:flex max-md:min-w-0 max-md:max-w-none max-md:gap-3 max-md:border-0 max-md:py-0.5 max-md:text-left max-md:before:w-28 max-md:before:shrink-0 max-md:before:text-[12px] max-md:before:font-sans max-md:before:font-normal max-md:before:text-muted max-md:before:content-[attr(data-label)]',
  /** A cell of controls (the row's actions, an editor): full width, no column name. */
  controls: 'max-md:block max-md:min-w-0 max-md:max-w-none max-md:border-0 max-md:pt-1.5',
} as const;
