/**
 * Keyboard focus after an action. A pending button is disabled, and Chromium
 * then drops focus to the body; a row that vanishes takes its focused button
 * with it. These put focus back somewhere sensible, but only when it was lost:
 * never away from where the person has moved it since.
 */
export function focusLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body;
}

/** Focuses `target` if focus was lost (see above). */
export function refocus(target: HTMLElement | null | undefined): void {
  if (target?.isConnected && focusLost()) target.focus();
}

/** Focuses the element with this id (a list's heading, made focusable with tabIndex={-1}) if focus was lost. */
export function refocusById(id: string): void {
  refocus(document.getElementById(id));
}
