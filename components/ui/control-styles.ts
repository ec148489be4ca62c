import clsx from 'clsx';

export type ControlSize = 'sm' | 'md';

/**
 * The one look of every text box and select: a line border that turns accent
 * on focus and danger when the field is invalid (the global :focus-visible
 * outline still draws the ring). `sm` sits in table rows, `md` in page forms.
 * `onSurface` is for controls inside a surface panel, where a canvas fill
 * keeps them distinct from the panel.
 */
export function controlClass({
  size = 'md',
  onSurface = false,
  className,
}: {
  size?: ControlSize;
  onSurface?: boolean;
  className?: string;
}) {
  return clsx(
    'rounded border border-line px-2 py-1 text-ink placeholder:text-muted',
    'focus-visible:border-accent aria-[invalid=true]:border-danger disabled:opacity-60',
    size === 'sm' ? 'text-[12px]' : 'text-[13px]',
    onSurface ? 'bg-canvas' : 'bg-surface',
    className,
  );
}
