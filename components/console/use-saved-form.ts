'use client';

import { useActionState, useEffect, useRef } from 'react';
import { useToast } from '@/components/ui/toast';
import type { ActionResult } from '@/lib/server/action';
import { refocus } from './focus-after-action';

/** What a settings form's server action answers: its result, and what was typed (a refused form comes back as it was). */
export interface SavedFormState<Data, Values> {
  result: ActionResult<Data>;
  values: Values;
}

/** A save the action made: its state with the successful result. */
export type Saved<State extends { result: ActionResult<unknown> }> = State & {
  result: Extract<State['result'], { ok: true }>;
};

/** What the toast says about a save. */
export type SaveOutcome = { message: string; tone: 'success' | 'info' | 'error' };

/**
 * A settings form that saves through a server action: the action's state, the values a refusal brings back and
 * the errors it names by field, a toast after every answer, and focus back on the save button (saving disabled
 * it, which dropped focus).
 */
export function useSavedForm<Data, Values>(
  action: (
    previous: SavedFormState<Data, Values> | undefined,
    formData: FormData,
  ) => Promise<SavedFormState<Data, Values>>,
  /** What the toast says about a save that was made. */
  outcomeOf: (state: Saved<SavedFormState<Data, Values>>) => SaveOutcome,
  /** What the toast says about a refusal for bad input (the fields say what is wrong). */
  invalidMessage = 'Not saved: check the fields marked in the form.',
) {
  const [state, submit, pending] = useActionState(action, undefined);
  const refused = state && !state.result.ok ? state.values : undefined;
  const errors = state?.result.ok === false ? (state.result.fieldErrors ?? {}) : {};
  const toast = useToast();
  const saveButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!state) return;
    const { result } = state;
    const { message, tone } = result.ok
      ? outcomeOf({ ...state, result })
      : {
          message: result.code === 'INVALID_INPUT' ? invalidMessage : `Not saved: ${result.message}`,
          tone: 'error' as const,
        };
    toast.show(message, { tone });
    refocus(saveButton.current);
  }, [state, toast, outcomeOf, invalidMessage]);
  return { state, submit, pending, refused, errors, saveButton };
}
