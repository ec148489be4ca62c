'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, useTransition } from 'react';

/**
 * A select's value when it was first seen: React's `defaultValue` on a select
 * sets which option is selected but not the options' `defaultSelected`, so the
 * browser's own notion of "unchanged" cannot be read for selects.
 */
const firstSeenSelect = new WeakMap<HTMLSelectElement, string>();

/**
 * True while someone is in the middle of something a refresh could disturb:
 * a dialog open, or a control in the page changed from what the server
 * rendered (a note typed, a row ticked, a filter chosen but not yet applied).
 */
function someoneIsEditing(): boolean {
  if (document.querySelector('dialog[open]')) return true;
  let editing = false;
  for (const control of document.querySelectorAll<HTMLElement>('main input, main textarea, main select')) {
    if (control instanceof HTMLInputElement) {
      if (control.type === 'hidden') continue;
      if (control.type === 'checkbox' || control.type === 'radio') {
        if (control.checked !== control.defaultChecked) editing = true;
      } else if (control.value !== control.defaultValue) editing = true;
    } else if (control instanceof HTMLTextAreaElement) {
      if (control.value !== control.defaultValue) editing = true;
    } else if (control instanceof HTMLSelectElement) {
      // Every select is looked at (not stopping early), so each one's first value is its own.
      const first = firstSeenSelect.get(control);
      if (first === undefined) firstSeenSelect.set(control, control.value);
      else if (first !== control.value) editing = true;
    }
  }
  return editing;
}

/**
 * Re-renders the server page every `intervalMs` (router.refresh(): the page
 * reads its data afresh and client state, typed text included, survives),
 * and says how fresh it is: "Updated N s ago". Paused while the tab is hidden
 * or someone is editing (see someoneIsEditing), so a row never moves under a
 * hand. `renderedAt` is the server's render time: a new one means a refresh landed.
 */
export function LiveRefresh({ renderedAt, intervalMs = 10_000 }: { renderedAt: string; intervalMs?: number }) {
  const router = useRouter();
  const [refreshing, startRefresh] = useTransition();
  const [updatedAt, setUpdatedAt] = useState<number | undefined>(undefined);
  const [now, setNow] = useState<number | undefined>(undefined);
  const [paused, setPaused] = useState(false);
  const lastAsked = useRef(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new render time is exactly the event to note.
  useEffect(() => {
    setUpdatedAt(Date.now());
    lastAsked.current = Date.now();
    // A new render (a refresh, an applied filter, an action's answer) is the new "unchanged".
    for (const select of document.querySelectorAll<HTMLSelectElement>('main select'))
      firstSeenSelect.set(select, select.value);
  }, [renderedAt]);

  useEffect(() => {
    const tick = setInterval(() => {
      const moment = Date.now();
      setNow(moment);
      const editing = someoneIsEditing();
      setPaused(editing);
      if (editing || document.hidden || moment - lastAsked.current < intervalMs) return;
      lastAsked.current = moment;
      startRefresh(() => router.refresh());
    }, 1_000);
    return () => clearInterval(tick);
  }, [router, intervalMs]);

  // First render (server and hydration): no clock reading yet, so no mismatch.
  const seconds = updatedAt !== undefined && now !== undefined ? Math.max(0, Math.round((now - updatedAt) / 1000)) : 0;
  return (
    <p className="text-[12px] text-muted tabular-nums" data-testid="updated-ago">
      Updated {seconds} s ago
      {refreshing ? ' · refreshing…' : paused ? ' · paused while you edit' : ''}
    </p>
  );
}
