'use client';

import clsx from 'clsx';
import { type ReactNode, useEffect, useId, useRef } from 'react';
import { VisibleText } from './visible-text';

/**
 * A modal on the native <dialog> with showModal(), so the browser traps focus,
 * makes the page behind it inert and closes it on Escape. Opening moves focus
 * to the element marked `data-initial-focus` (else the browser's first
 * focusable one); closing, however it happens, returns focus to whatever had
 * it before and tells `onClose`, so `open` stays the single source of truth.
 */
export function Dialog({
  open,
  onClose,
  title,
  children,
  testId,
  className,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  testId?: string;
  className?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  // Read by the close handler: a close the parent asked for is not reported back to it.
  const wanted = useRef(open);
  wanted.current = open;

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      element.showModal();
      element.querySelector<HTMLElement>('[data-initial-focus]')?.focus();
    } else if (!open && element.open) {
      element.close();
    }
  }, [open]);

  const handleClose = () => {
    opener.current?.focus();
    opener.current = null;
    // Escape (or a form with method="dialog") closed it without React: report it.
    if (wanted.current) onClose();
  };

  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      onClose={handleClose}
      className={clsx(
        'm-auto w-[min(36rem,92vw)] rounded-lg border border-line bg-surface p-5 text-ink backdrop:bg-black/40',
        className,
      )}
      data-testid={testId}
    >
      <h2 id={titleId} className="mb-3 text-[15px] font-semibold">
        {/* A title may name an agent's item (a slot, a task): its bidi controls are shown, not applied. */}
        {typeof title === 'string' ? <VisibleText text={title} /> : title}
      </h2>
      {children}
    </dialog>
  );
}
