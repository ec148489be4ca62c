'use client';

import type { ComponentProps, ReactNode } from 'react';
import { Field } from './field';
import { Input } from './input';

/**
 * A Field holding one full-width Input on a surface: the commonest row of a settings form, in one element. `name`
 * also names the field's id (`<idPrefix>-<name>`) and its error's test id (`<idPrefix>-error-<name>`).
 */
export function InputField({
  idPrefix,
  name,
  label,
  hint,
  error,
  ...input
}: Omit<ComponentProps<typeof Input>, 'name' | 'onSurface'> & {
  idPrefix: string;
  name: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string[];
}) {
  return (
    <Field id={`${idPrefix}-${name}`} label={label} hint={hint} error={error} errorTestId={`${idPrefix}-error-${name}`}>
      <Input name={name} onSurface className="w-full" {...input} />
    </Field>
  );
}
