'use client';

import { type FormEvent, useState, useTransition } from 'react';
import { useToast } from '@/components/ui/toast';
import type { ActionResult } from '@/lib/server/action';

/** What the toast says after an answer, and in which tone. */
export type Announcement = { text: string; tone: 'success' | 'info' | 'error' };

/**
 * A form that stays on the page and sends its fields to a server action on submit, without asking first: the
 * answer (its field errors beside the fields), the pending state, and a toast for every answer. `submitter` is the
 * value of the button that sent the form (a form with two actions tells them apart by it).
 */
export function useSentForm<Data>({
  send,
  announce,
  afterSuccess,
}: {
  send: (fields: FormData, submitter: string | null) => Promise<ActionResult<Data>>;
  /** What the toast says about a success; a refusal says "Not saved:" and the server's message. */
  announce: (data: Data, submitter: string | null) => Announcement | string;
  afterSuccess?: () => void;
}) {
  const toast = useToast();
  const [result, setResult] = useState<ActionResult<Data>>();
  const [pending, startTransition] = useTransition();
  const errors = result && !result.ok ? result.fieldErrors : undefined;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    const submitter = (event.nativeEvent as SubmitEvent).submitter?.getAttribute('value') ?? null;
    startTransition(async () => {
      const answer = await send(fields, submitter);
      startTransition(() => setResult(answer));
      if (!answer.ok) {
        toast.show(`Not saved: ${answer.message}`, { tone: 'error' });
        return;
      }
      const said = announce(answer.data, submitter);
      const { text, tone } = typeof said === 'string' ? { text: said, tone: 'success' as const } : said;
      toast.show(text, { tone });
      afterSuccess?.();
    });
  };

  return { result, errors, pending, submit };
}

/** What a save-or-remove form's toast says for each answer. */
export interface SaveOrRemoveSaid {
  saved: string;
  unchanged: string;
  removed: string;
  nothingToRemove: string;
}

/**
 * A form with Save and Remove (its submit buttons valued `save` and `remove`) over two server actions: the answer
 * of the one that sent it announced in the form's words, "nothing changed" in the info tone.
 */
export function useSaveOrRemoveForm({
  save,
  remove,
  said,
  afterSuccess,
}: {
  save: (previous: undefined, fields: FormData) => Promise<ActionResult<{ changed: boolean }>>;
  remove: (previous: undefined, fields: FormData) => Promise<ActionResult<{ removed: boolean }>>;
  said: SaveOrRemoveSaid;
  afterSuccess?: () => void;
}) {
  return useSentForm<{ removed: boolean } | { changed: boolean }>({
    send: (fields, submitter) => (submitter === 'remove' ? remove(undefined, fields) : save(undefined, fields)),
    announce: (data, submitter): Announcement => {
      const changed = 'removed' in data ? data.removed : data.changed;
      const text =
        submitter === 'remove'
          ? changed
            ? said.removed
            : said.nothingToRemove
          : changed
            ? said.saved
            : said.unchanged;
      return { text, tone: changed ? 'success' : 'info' };
    },
    afterSuccess,
  });
}
