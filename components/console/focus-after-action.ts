/**
 * Where keyboard focus goes after an action, the console's one place for it.
 * An action can take focus away: a pending button is disabled (Chromium then
 * drops focus to the body), a closing dialog hands focus back to its opener,
 * a row that leaves the list takes its focused control with it. Three moves:
 *   - planFocusAfterRow: a row's action that may take the row away (a cleared
 *     hold, a released lock, a redriven dead letter): on to the next row;
 *   - focusAfterDialogs: an action that ends with dialogs closing (a bulk
 *     clear): to the list's heading, once no dialog can take focus back;
 *   - refocus, refocusById: a form that stays (a save, a revoke): back to a
 *     control or the heading, but only if focus was lost.
 */

/** True when focus is nowhere (on the body): the page may put it back. */
export function focusLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body;
}

/** Focuses `target` if focus was lost: never away from where the person has moved it since. */
export function refocus(target: HTMLElement | null | undefined): void {
  if (target?.isConnected && focusLost()) target.focus();
}

/** Focuses the element with this id (a list's heading, made focusable with tabIndex={-1}) if focus was lost. */
export function refocusById(id: string): void {
  refocus(document.getElementById(id));
}

/**
 * Plans where focus goes after an action on the row holding `from`: to the
 * next row's action (rows are marked `data-row="<key>"`, their first control
 * `data-row-action`), else the previous row's, else the list's heading.
 * Planned before the action, because the row and its neighbours are read
 * while they are still in the page.
 */
export function planFocusAfterRow(from: Element | null, headingId: string) {
  const row = from?.closest<HTMLElement>('[data-row]') ?? null;
  const rows = row?.parentElement ? [...row.parentElement.querySelectorAll<HTMLElement>(':scope > [data-row]')] : [];
  const index = row ? rows.indexOf(row) : -1;
  const neighbours = [...rows.slice(index + 1), ...rows.slice(0, Math.max(index, 0)).reverse()].map((element) =>
    element.getAttribute('data-row'),
  );

  const focusNeighbour = () => {
    for (const key of neighbours) {
      if (key === null) continue;
      const target = document.querySelector<HTMLElement>(`[data-row="${CSS.escape(key)}"] [data-row-action]`);
      if (target) {
        target.focus();
        return;
      }
    }
    document.getElementById(headingId)?.focus();
  };

  /**
   * Call once the action succeeded: waits (a few frames, at most `patienceMs`)
   * for the refreshed list to drop the row, then moves focus; if the row stays,
   * `ifRowStays` decides (focus then stays where it is by default).
   */
  return (ifRowStays?: () => void, patienceMs = 2_000) => {
    const started = performance.now();
    const step = () => {
      if (!row?.isConnected) return focusNeighbour();
      if (performance.now() - started < patienceMs) requestAnimationFrame(step);
      else ifRowStays?.();
    };
    requestAnimationFrame(step);
  };
}

/**
 * Focuses an element once every dialog has closed: a closing dialog hands focus
 * back to the button that opened it (in its close event, a task after close()),
 * which would otherwise undo a move made at the same moment.
 */
export function focusAfterDialogs(target: () => HTMLElement | null, patienceMs = 2_000) {
  const started = performance.now();
  let calmFrames = 0;
  const step = () => {
    const open = document.querySelector('dialog[open]') !== null;
    calmFrames = open ? 0 : calmFrames + 1;
    // Two quiet frames: the close event's task has run by then.
    if (calmFrames >= 2 || performance.now() - started > patienceMs) target()?.focus();
    else requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}
