import Form from 'next/form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { UtcMinuteInput } from '@/components/ui/utc-minute-input';
import type { TimeRange } from '@holdfast/protocol/time-window';

/**
 * Any range of the step's history, from the keyboard: From and To in UTC, sent as a custom window (the same URL
 * a drag across a chart makes). It shows the range on screen, so a zoomed view says what it is.
 */
export function StepRangeForm({ path, range, custom }: { path: string; range: TimeRange; custom: boolean }) {
  return (
    <Form
      key={`${range.from.toISOString()}-${range.to.toISOString()}`}
      action={path}
      className="mb-3 flex flex-wrap items-end gap-2 text-[12px] text-muted"
      data-testid="step-range-form"
      aria-label="Custom range"
    >
      <input type="hidden" name="window" value="custom" />
      <Field label="From (UTC)">
        <UtcMinuteInput name="from" moment={range.from} required size="sm" />
      </Field>
      <Field label="To (UTC)">
        <UtcMinuteInput name="to" moment={range.to} required size="sm" />
      </Field>
      <Button type="submit" variant={custom ? 'primary' : undefined}>
        Show range
      </Button>
    </Form>
  );
}
