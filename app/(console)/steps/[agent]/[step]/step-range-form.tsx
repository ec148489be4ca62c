import Form from 'next/form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import type { TimeRange } from '@holdfast/protocol/time-window';

/** A datetime-local field's value for a moment, in UTC: "2026-12-03T10:05". */
const utcInput = (moment: Date) => moment.toISOString().slice(0, 16);

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
        <Input type="datetime-local" name="from" defaultValue={utcInput(range.from)} required size="sm" />
      </Field>
      <Field label="To (UTC)">
        <Input type="datetime-local" name="to" defaultValue={utcInput(range.to)} required size="sm" />
      </Field>
      <Button type="submit" variant={custom ? 'primary' : undefined}>
        Show range
      </Button>
    </Form>
  );
}
