'use client';

import { Fragment } from 'react';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';

/**
 * A token's rate limit as two fields, requests a second and burst: blank for the deployment's default (shown as
 * the placeholder). In a token's row (`inRow`) the labels name the token for a screen reader and are not shown.
 */
export function RateFields({
  defaults,
  values,
  errors,
  inRow,
  testIdPrefix,
}: {
  defaults: { perSecond: number; burst: number };
  values?: { ratePerSecond: number | null; rateBurst: number | null };
  errors?: Record<string, string[] | undefined>;
  /** The token's name, when the fields sit in its row. */
  inRow?: string;
  testIdPrefix: string;
}) {
  const fields = [
    { name: 'ratePerSecond', label: 'Requests a second', inputMode: 'decimal', fallback: defaults.perSecond },
    { name: 'rateBurst', label: 'Burst', inputMode: 'numeric', fallback: defaults.burst },
  ] as const;
  return fields.map((field, index) => (
    <Fragment key={field.name}>
      {inRow && index === 1 ? <span aria-hidden="true">/s, burst</span> : null}
      <Field
        label={inRow ? `${field.label} for ${inRow}` : field.label}
        hideLabel={inRow !== undefined}
        error={errors?.[field.name]}
      >
        <Input
          name={field.name}
          inputMode={field.inputMode}
          size={inRow ? 'sm' : undefined}
          className={inRow ? 'w-32' : 'w-28'}
          defaultValue={values?.[field.name] ?? ''}
          placeholder={`${field.fallback} (default)`}
          aria-describedby={inRow ? undefined : 'token-rate-help'}
          data-testid={`${testIdPrefix}-${field.name === 'ratePerSecond' ? 'per-second' : 'burst'}`}
          onSurface={inRow === undefined}
        />
      </Field>
    </Fragment>
  ));
}
