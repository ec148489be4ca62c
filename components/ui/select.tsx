'use client';

import type { ComponentProps } from 'react';
import { type ControlSize, controlClass } from './control-styles';
import { useControlAria } from './field-context';

export type SelectProps = Omit<ComponentProps<'select'>, 'size'> & {
  size?: ControlSize;
  onSurface?: boolean;
  /** The id of the message saying what is wrong with it, when it is shown outside a Field. */
  errorId?: string;
};

/** A native select styled like the inputs. Inside a Field it takes the Field's id and descriptions. */
export function Select({ size, onSurface, className, errorId, id, ...props }: SelectProps) {
  const aria = useControlAria({
    id,
    errorId,
    'aria-describedby': props['aria-describedby'],
    'aria-invalid': props['aria-invalid'],
  });
  return <select {...props} {...aria} className={controlClass({ size, onSurface, className })} />;
}
