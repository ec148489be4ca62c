import clsx from 'clsx';
import type { ComponentProps, ReactNode } from 'react';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'link' | 'danger-link' | 'tile';
export type ButtonSize = 'sm' | 'md';

const variantClass: Record<ButtonVariant, string> = {
  primary: 'rounded bg-accent font-medium text-on-accent',
  secondary: 'rounded border border-line hover:border-accent',
  danger: 'rounded bg-danger font-medium text-on-accent',
  link: 'text-accent hover:underline',
  'danger-link': 'text-danger hover:underline',
  // A whole choice as one button: a card with a title and a line of detail.
  tile: 'w-full rounded-lg border border-line bg-surface px-4 py-3 text-left hover:border-accent',
};

/** Links and tiles size themselves; only the boxed buttons take a size. */
const boxed = new Set<ButtonVariant>(['primary', 'secondary', 'danger']);
const sizeClass: Record<ButtonSize, string> = {
  sm: 'px-2.5 py-1 text-[12px]',
  md: 'px-3 py-1 text-[13px]',
};

export type ButtonProps = ComponentProps<'button'> & {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** The action it started is running: disabled, marked aria-busy, and showing `pendingLabel` if given. */
  pending?: boolean;
  pendingLabel?: ReactNode;
};

/**
 * Every button in the console. `type` defaults to "button", so a button
 * submits a form only when it says so.
 */
export function Button({
  variant = 'secondary',
  size = 'sm',
  pending = false,
  pendingLabel,
  disabled,
  className,
  children,
  type = 'button',
  ...props
}: ButtonProps) {
  return (
    <button
      type={type}
      disabled={disabled || pending}
      aria-busy={pending || undefined}
      className={clsx(
        variantClass[variant],
        boxed.has(variant) && sizeClass[size],
        'disabled:cursor-not-allowed disabled:opacity-60',
        className,
      )}
      {...props}
    >
      {pending && pendingLabel !== undefined ? pendingLabel : children}
    </button>
  );
}
