'use client';

import { createContext, useContext } from 'react';

/** What a Field tells the control inside it: its id, and what describes it. */
export interface FieldWiring {
  id: string;
  describedBy?: string;
  invalid: boolean;
}

export const FieldContext = createContext<FieldWiring | undefined>(undefined);

interface ControlAria {
  id?: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean | 'true' | 'false' | 'grammar' | 'spelling';
  /** The id of an error message shown outside a Field: the control is then invalid and described by it. */
  errorId?: string;
}

const joinIds = (...ids: (string | undefined)[]) => ids.filter(Boolean).join(' ') || undefined;

/**
 * A control's id and aria wiring: its own props win, then the enclosing
 * Field's, so a control works alone or inside a Field without repeating ids.
 */
export function useControlAria({ id, errorId, 'aria-describedby': describedBy, 'aria-invalid': invalid }: ControlAria) {
  const field = useContext(FieldContext);
  return {
    id: id ?? field?.id,
    'aria-describedby': joinIds(describedBy, field?.describedBy, errorId),
    'aria-invalid': invalid ?? (errorId || field?.invalid ? true : undefined),
  };
}
