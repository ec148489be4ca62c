'use client';

import clsx from 'clsx';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { VisibleText } from './visible-text';

export type ToastTone = 'info' | 'success' | 'error';

interface Toast {
  id: number;
  message: string;
  tone: ToastTone;
}

interface ToastApi {
  /** Shows a short message for a few seconds; returns a function that dismisses it early. */
  show: (message: string, options?: { tone?: ToastTone }) => () => void;
}

const ToastContext = createContext<ToastApi | undefined>(undefined);

/** Long enough to read a sentence; short enough not to pile up. */
const TOAST_MILLISECONDS = 5_000;

const toneClass: Record<ToastTone, string> = {
  info: 'border-line',
  success: 'border-ok',
  error: 'border-danger',
};

/**
 * Holds the console's toasts and their live region. The region is always in
 * the page (role "status", polite), because screen readers announce only
 * changes to a region that already exists.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);

  const dismiss = useCallback((id: number) => setToasts((shown) => shown.filter((toast) => toast.id !== id)), []);
  const show = useCallback<ToastApi['show']>(
    (message, options) => {
      const id = nextId.current++;
      setToasts((shown) => [...shown, { id, message, tone: options?.tone ?? 'info' }]);
      return () => dismiss(id);
    },
    [dismiss],
  );
  const api = useMemo(() => ({ show }), [show]);

  return (
    <ToastContext value={api}>
      {children}
      <div
        role="status"
        aria-live="polite"
        className="pointer-events-none fixed bottom-4 right-4 z-50 flex w-80 flex-col gap-2"
        data-testid="toasts"
      >
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} onDismiss={() => dismiss(toast.id)} />
        ))}
      </div>
    </ToastContext>
  );
}

function ToastItem({ toast, onDismiss }: { toast: Toast; onDismiss: () => void }) {
  const dismissed = useRef(onDismiss);
  dismissed.current = onDismiss;
  useEffect(() => {
    const timer = setTimeout(() => dismissed.current(), TOAST_MILLISECONDS);
    return () => clearTimeout(timer);
  }, []);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape here only adds a shortcut to the Dismiss button inside.
    <div
      onKeyDown={(event) => {
        if (event.key === 'Escape') onDismiss();
      }}
      className={clsx(
        'pointer-events-auto flex items-start gap-2 rounded-md border border-l-4 bg-surface px-3 py-2 text-[13px] shadow-md',
        toneClass[toast.tone],
      )}
      data-testid="toast"
    >
      {/* A message may quote an agent's names: their bidi controls are shown, not applied. */}
      <p className="flex-1">
        <VisibleText text={toast.message} />
      </p>
      {/* A real button: reachable by Tab, dismissed by Enter or Space. */}
      <button
        type="button"
        onClick={onDismiss}
        aria-label="Dismiss notification"
        className="text-[12px] text-muted hover:text-ink"
      >
        ✕
      </button>
    </div>
  );
}

/** The console's toasts; needs the ToastProvider above (the console layout mounts it). */
export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast() needs a <ToastProvider> above it.');
  return api;
}
