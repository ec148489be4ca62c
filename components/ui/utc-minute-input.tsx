import { Input, type InputProps } from './input';

/** A moment as the field shows it: "2026-12-03 10:05", 24-hour UTC, as every time in the console is written. */
export const utcMinuteText = (moment: Date | string) => new Date(moment).toISOString().slice(0, 16).replace('T', ' ');

/**
 * A minute in UTC, typed as text in the console's own 24-hour form ("2026-12-03 10:05"; a T in place of the space
 * is read too). Not a datetime-local field: the browser draws that in the viewer's locale, often with AM and PM,
 * under a label that says UTC. The server reads the value (lib/filters/steps.ts) and names a bad one.
 */
export function UtcMinuteInput({
  moment,
  ...props
}: Omit<InputProps, 'type' | 'value' | 'defaultValue'> & { moment: Date | string }) {
  return (
    <Input
      {...props}
      type="text"
      inputMode="numeric"
      autoComplete="off"
      spellCheck={false}
      defaultValue={utcMinuteText(moment)}
      pattern="\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}"
      placeholder="YYYY-MM-DD HH:MM"
      title="A minute in UTC, 24-hour: YYYY-MM-DD HH:MM"
      className="w-[10.5rem] font-mono tabular-nums"
    />
  );
}
