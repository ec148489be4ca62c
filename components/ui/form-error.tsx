import clsx from 'clsx';
import type { ReactNode } from 'react';
import { visibleText } from '@/lib/console/visible-text';

/** What a failed server action returns (lib/server/action's ActionResult, read structurally). */
export interface FailedAction {
  ok: false;
  message: string;
  fieldErrors?: Record<string, string[] | undefined>;
}

/**
 * The error of a server action's last answer, announced at once (role
 * "alert"); nothing when the answer was a success or there was none yet.
 * With `fieldLabels`, the field errors are listed too, each under its label,
 * for forms that do not show them beside their fields.
 */
export function FormError({
  result,
  children,
  fieldLabels,
  className,
  testId,
}: {
  result: { ok: true } | FailedAction | undefined;
  /** Said instead of the result's message (e.g. "Check the fields marked above."). */
  children?: ReactNode;
  fieldLabels?: Record<string, string>;
  className?: string;
  testId?: string;
}) {
  if (!result || result.ok) return null;
  const listed = fieldLabels
    ? Object.entries(result.fieldErrors ?? {}).filter((entry): entry is [string, string[]] => Boolean(entry[1]?.length))
    : [];
  return (
    <div role="alert" className={clsx('text-[12px] text-danger', className)} data-testid={testId}>
      {/* A message may quote an agent's names: their bidi controls are shown, not applied. */}
      <p>{children ?? visibleText(result.message)}</p>
      {listed.length > 0 ? (
        <ul className="mt-0.5 list-disc pl-4">
          {listed.map(([name, messages]) => (
            <li key={name}>
              {fieldLabels?.[name] ?? name}: {messages.join('; ')}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
