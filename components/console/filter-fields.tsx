import type { ReactNode } from 'react';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { visibleText } from '@/lib/console/visible-text';

/**
 * A list filter that picks one value or none ("Any"). Values are shown as stored, bidi controls as markers (an
 * option holds text only), unless `labelOf` names them.
 */
export function ChoiceFilter({
  label,
  name,
  value,
  choices,
  anyLabel = 'Any',
  labelOf = visibleText,
  special = [],
  size,
}: {
  label: string;
  name: string;
  value: string | undefined;
  choices: readonly string[];
  anyLabel?: string;
  labelOf?: (value: string) => ReactNode;
  /** Choices offered before the list, each with its own label ("mine"). */
  special?: { value: string; label: string }[];
  size?: 'sm';
}) {
  return (
    <Field label={label}>
      <Select name={name} defaultValue={value ?? ''} size={size}>
        <option value="">{anyLabel}</option>
        {special.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {labelOf(choice)}
          </option>
        ))}
      </Select>
    </Field>
  );
}

/** A list filter on a least value (attempts, dollars, hours): empty means no bound. */
export function LeastValueFilter({
  label,
  name,
  value,
  wholeNumbers = false,
  className = 'w-28',
}: {
  label: string;
  name: string;
  value: number | undefined;
  wholeNumbers?: boolean;
  className?: string;
}) {
  return (
    <Field label={label}>
      <Input
        type="number"
        name={name}
        min={0}
        step={wholeNumbers ? undefined : 'any'}
        defaultValue={value ?? ''}
        className={className}
      />
    </Field>
  );
}
