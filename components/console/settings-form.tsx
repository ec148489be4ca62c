'use client';

import type { ReactNode } from 'react';
import { ReasonAndSave } from './reason-and-save';
import type { useSavedForm } from './use-saved-form';

type SavedForm = ReturnType<typeof useSavedForm<unknown, Record<string, string>>>;

/** What a settings form's fields take from the form: each one's label and hint, its typed value, its error. */
export function fieldsOf<Fields extends Record<string, { label: string; hint?: string }>>(
  idPrefix: string,
  fields: Fields,
  values: Record<keyof Fields & string, string>,
  errors: Record<string, string[] | undefined>,
) {
  return (name: keyof Fields & string) => ({
    idPrefix,
    name,
    ...fields[name],
    defaultValue: values[name],
    error: errors[name],
  });
}

/**
 * A settings form on its surface: its title, its fields, and the reason row that saves it (the reason every change
 * needs, the save button, a way back when it edits, and why the last save was refused).
 */
export function SettingsForm({
  id,
  title,
  form,
  reason,
  save,
  className = 'mt-4',
  children,
}: {
  /** The form's id and test id; its title is `<id>-title`, its reason row's fields `<prefix>-...`. */
  id: string;
  title: ReactNode;
  form: Pick<SavedForm, 'submit' | 'pending' | 'errors' | 'saveButton'> & { state?: { result: unknown } };
  /** The reason typed so far (a refused save brings it back). */
  reason: string;
  save: { idPrefix: string; placeholder: string; label: string; cancelHref?: string };
  className?: string;
  children: ReactNode;
}) {
  return (
    <form
      id={id}
      action={form.submit as (formData: FormData) => void}
      className={`${className} flex flex-col gap-3 rounded-lg border border-line bg-surface p-4`}
      data-testid={id}
      aria-labelledby={`${id}-title`}
    >
      <h3 id={`${id}-title`} className="text-[13px] font-medium [overflow-wrap:anywhere]">
        {title}
      </h3>
      {children}
      <ReasonAndSave
        idPrefix={save.idPrefix}
        placeholder={save.placeholder}
        defaultValue={reason}
        error={form.errors.reason}
        saveLabel={save.label}
        pending={form.pending}
        saveButton={form.saveButton}
        cancelHref={save.cancelHref}
        result={form.state?.result as Parameters<typeof ReasonAndSave>[0]['result']}
      />
    </form>
  );
}
