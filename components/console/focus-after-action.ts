/**
 * Where keyboard focus goes after an action on a row that may take the row
 * away (a cleared hold, a released lock): to the next row's action (rows are
 * marked `data-row="<key>"`, their first control `data-row-action`), else the
 * previous row's, else the list's heading. Planned before the action, because
 * the row and its neighbours are read while they are still in the page.
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
