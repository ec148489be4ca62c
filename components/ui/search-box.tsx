'use client';

import clsx from 'clsx';
import { useEffect, useId, useRef } from 'react';
import { Button } from './button';
import { controlClass } from './control-styles';

const notTextInputs = new Set(['checkbox', 'radio', 'button', 'submit', 'reset']);

/** Typing into a field (or an editable region) keeps its `/`: the shortcut is for when nothing is being typed. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !notTextInputs.has(target.type);
}

/**
 * The console's search by id: a GET form to /search, which jumps to the one thing
 * found or lists several. With `shortcut`, `/` anywhere outside a field focuses it;
 * only the shell's own box takes the shortcut, so a second box on a page does not.
 */
export function SearchBox({
  defaultValue,
  shortcut = false,
  className,
  testId = 'search-box',
  label = 'Search by id',
}: {
  defaultValue?: string;
  shortcut?: boolean;
  className?: string;
  testId?: string;
  /** Names the search landmark and its box, so two boxes on one page are told apart. */
  label?: string;
}) {
  const input = useRef<HTMLInputElement>(null);
  const id = useId();

  useEffect(() => {
    if (!shortcut) return;
    function focusOnSlash(event: KeyboardEvent) {
      if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
      if (isTyping(event.target)) return;
      event.preventDefault();
      input.current?.focus();
      input.current?.select();
    }
    document.addEventListener('keydown', focusOnSlash);
    return () => document.removeEventListener('keydown', focusOnSlash);
  }, [shortcut]);

  return (
    <search aria-label={label} data-testid={testId} className={clsx('block min-w-0', className)}>
      {/* A plain GET form, not next/form: an exact match is answered with a redirect, which a
          whole-page load follows as a real 307 (a client-side redirect drops the head's icon for
          a moment, and Chromium then asks for /favicon.ico, a 404). */}
      <form action="/search" method="get" className="flex min-w-0 gap-1.5">
        <label htmlFor={id} className="sr-only">
          {label} (task, key, hold, dead letter or step)
        </label>
        <input
          ref={input}
          id={id}
          name="q"
          type="search"
          defaultValue={defaultValue}
          placeholder={shortcut ? 'Task, key, hold, step id…  ( / )' : 'Task, key, hold, step id…'}
          autoComplete="off"
          spellCheck={false}
          aria-keyshortcuts={shortcut ? '/' : undefined}
          className={controlClass({ className: 'min-w-0 flex-1 font-mono text-[12px]' })}
        />
        <Button type="submit">Search</Button>
      </form>
    </search>
  );
}
