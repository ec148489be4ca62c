'use client';

import { useId } from 'react';
import { useSentForm } from '@/components/console/use-sent-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import type { BreakerSettings } from '@holdfast/engine/core';
import { saveBreakerSettingsAction } from './actions';
import { ReasonField } from '@/components/console/reason-field';

const fields = [
  { name: 'windowSeconds', label: 'Window (seconds)', hint: 'Failures are counted over this sliding window.' },
  { name: 'failurePercent', label: 'Opens at (% failing)', hint: 'Transient, rate-limited and timed-out attempts.' },
  { name: 'minimumVolume', label: 'Minimum attempts', hint: 'Fewer attempts in the window never open it.' },
  { name: 'coolDownSeconds', label: 'Rest (seconds)', hint: 'Begins wait this long before the first probe.' },
  { name: 'probes', label: 'Probes', hint: 'Begins let through at a time while half-open.' },
] as const;

/** Admins change the breakers' settings for the whole fleet, with a reason (audited); the next begin and finish use them. */
export function BreakerSettingsForm({ settings }: { settings: BreakerSettings }) {
  const id = useId();
  const { result, errors, pending, submit } = useSentForm({
    send: (fields) => saveBreakerSettingsAction(undefined, fields),
    announce: () => 'Breaker settings saved: the next begin and finish use them.',
  });
  const values: Record<(typeof fields)[number]['name'], number> = {
    windowSeconds: settings.windowSeconds,
    failurePercent: Math.round(settings.failureShare * 1000) / 10,
    minimumVolume: settings.minimumVolume,
    coolDownSeconds: settings.coolDownSeconds,
    probes: settings.probes,
  };

  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3" data-testid="breaker-settings-form">
      {fields.map((field) => (
        <Field
          key={field.name}
          label={field.label}
          hint={field.hint}
          id={`${id}-${field.name}`}
          error={errors?.[field.name]}
          className="w-40"
        >
          <Input name={field.name} type="number" step="any" required size="sm" defaultValue={values[field.name]} />
        </Field>
      ))}
      <ReasonField id={id} error={errors?.reason} />
      <Button type="submit" pending={pending} pendingLabel="Saving…">
        Save settings
      </Button>
      <FormError result={result} className="w-full" />
    </form>
  );
}
