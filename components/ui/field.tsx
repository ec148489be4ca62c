'use client';

import clsx from 'clsx';
import { type ReactNode, useId } from 'react';
import { FieldContext } from './field-context';

/**
 * A label, its control, an optional hint and an optional error, wired
 * together: the label names the control, the hint and the error describe it,
 * and an error marks it invalid. Pass `id` to keep an id other code relies on;
 * otherwise one is generated. `hideLabel` keeps the label for screen readers
 * only and renders no wrapper, so the control can sit in a row with others.
 */
export function Field({
  label,
  children,
  hint,
  error,
  id: givenId,
  hideLabel = false,
  className,
  errorTestId,
}: {
  label: ReactNode;
  children: ReactNode;
  hint?: ReactNode;
  /** One message, or several joined with "; ". */
  error?: string | string[];
  id?: string;
  hideLabel?: boolean;
  /** Classes for the stacked wrapper (ignored with `hideLabel`). */
  className?: string;
  errorTestId?: string;
}) {
  const generatedId = useId();
  const id = givenId ?? generatedId;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorText = Array.isArray(error) ? error.join('; ') : error;
  const errorId = errorText ? `${id}-error` : undefined;
  const wiring = {
    id,
    describedBy: [hintId, errorId].filter(Boolean).join(' ') || undefined,
    invalid: errorId !== undefined,
  };
  const parts = (
    <>
      <label htmlFor={id} className={hideLabel ? 'sr-only' : undefined}>
        {label}
      </label>
      <FieldContext value={wiring}>{children}</FieldContext>
      {hint ? (
        <span id={hintId} className="text-[11px] text-muted">
          {hint}
        </span>
      ) : null}
      {errorText ? (
        <span id={errorId} className="text-[11px] text-danger" data-testid={errorTestId}>
          {errorText}
        </span>
      ) : null}
    </>
  );
  if (hideLabel) return parts;
  return <div className={clsx('flex min-w-0 flex-col gap-1 text-[12px] text-muted', className)}>{parts}</div>;
}
