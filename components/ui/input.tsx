'use client';

import type { ComponentProps } from 'react';
import { type ControlSize, controlClass } from './control-styles';
import { useControlAria } from './field-context';

export type InputProps = Omit<ComponentProps<'input'>, 'size'> & {
  size?: ControlSize;
  onSurface?: boolean;
  /** The id of the message saying what is wrong with it, when it is shown outside a Field. */
  errorId?: string;
};

/** A text-like input (text, number, search, date…). Inside a Field it takes the Field's id and descriptions. */
export function Input({ size, onSurface, className, errorId, id, ...props }: InputProps) {
  const aria = useControlAria({
    id,
    errorId,
    'aria-describedby': props['aria-describedby'],
    'aria-invalid': props['aria-invalid'],
  });
  return <input {...props} {...aria} className={controlClass({ size, onSurface, className })} />;
}
