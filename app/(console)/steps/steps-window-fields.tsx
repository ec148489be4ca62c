'use client';

import { useState } from 'react';
import { Field } from '@/components/ui/field';
import { UtcMinuteInput } from '@/components/ui/utc-minute-input';

/**
 * The custom range of the Steps filters. The window itself is chosen by the links above the form (one control,
 * not two): typing a From or a To makes the window custom, and only then are they sent, so a shared link to a
 * named window says exactly what it shows.
 */
export function StepsWindowFields({ window, from, to }: { window: string; from: string; to: string }) {
  const [custom, setCustom] = useState(window === 'custom');
  const typed = () => setCustom(true);
  return (
    <>
      <input type="hidden" name="window" value={custom ? 'custom' : window} />
      <Field label="From (UTC)">
        <UtcMinuteInput name={custom ? 'from' : undefined} moment={from} onInput={typed} size="sm" />
      </Field>
      <Field label="To (UTC)">
        <UtcMinuteInput name={custom ? 'to' : undefined} moment={to} onInput={typed} size="sm" />
      </Field>
    </>
  );
}
