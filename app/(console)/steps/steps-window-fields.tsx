'use client';

import { useState } from 'react';
import { Field } from '@/components/ui/field';
import { UtcMinuteInput } from '@/components/ui/utc-minute-input';
import { Select } from '@/components/ui/select';
import { timeWindowName } from '@holdfast/protocol/time-window';

/**
 * The window select and the custom range. From and To count only for a custom
 * window, so they are disabled (and left out of the URL) for the others: a
 * shared link then says exactly what it shows.
 */
export function StepsWindowFields({ window, from, to }: { window: string; from: string; to: string }) {
  const [chosen, setChosen] = useState(window);
  const custom = chosen === 'custom';
  return (
    <>
      <Field label="Window">
        <Select name="window" value={chosen} onChange={(event) => setChosen(event.target.value)} size="sm">
          {[...timeWindowName.options, 'custom'].map((name) => (
            <option key={name} value={name}>
              {name === 'custom' ? 'custom (from – to, UTC)' : name}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="From (UTC)">
        <UtcMinuteInput name="from" moment={from} disabled={!custom} size="sm" />
      </Field>
      <Field label="To (UTC)">
        <UtcMinuteInput name="to" moment={to} disabled={!custom} size="sm" />
      </Field>
    </>
  );
}
