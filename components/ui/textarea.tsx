'use client';

import type { ComponentProps } from 'react';
import { type ControlSize, controlClass } from './control-styles';
import { useControlAria } from './field-context';

export type TextareaProps = ComponentProps<'textarea'> & {
  size?: ControlSize;
  onSurface?: boolean;
  /** The id of the message saying what is wrong with it, when it is shown outside a Field. */
  errorId?: string;
};

/** A multi-line text box styled like the inputs. Inside a Field it takes the Field's id and descriptions. */
export function Textarea({ size, onSurface, className, errorId, id, ...props }: TextareaProps) {
  const aria = useControlAria({
    id,
    errorId,
    'aria-describedby': props['aria-describedby'],
    'aria-invalid': props['aria-invalid'],
  });
  return <textarea {...props} {...aria} className={controlClass({ size, onSurface, className })} />;
}
