import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';

/** The reason a change needs, on a compact settings row: it takes the row's rest on a wide screen, a line on a phone. */
export function ReasonField({
  id,
  error,
  placeholder = 'Why (audited)',
}: {
  /** The form's id: the field is `<id>-reason`. */
  id: string;
  error?: string[];
  placeholder?: string;
}) {
  return (
    <Field label="Reason" id={`${id}-reason`} error={error} className="w-full min-w-0 sm:w-auto sm:min-w-64 sm:flex-1">
      <Input name="reason" required size="sm" placeholder={placeholder} />
    </Field>
  );
}
