import type { AlertKind } from '../db/schema';

/**
 * Flap damping: how long an alert's condition must stay clear before the alert resolves.
 *
 * A figure hovering at its threshold (a retry share near its anomaly line, a key whose claim is retaken and runs
 * out again) would otherwise fire, resolve and fire again every few minutes, each time a new alert and a new page.
 * Instead, when the condition stops holding the alert is marked cleared and keeps firing; if the condition comes
 * back within the quiet time it is the same alert seen again (its fire count goes up, nothing is sent), and only
 * once it has stayed clear for the whole quiet time does it resolve and the channels hear "resolved". The price is
 * a resolution announced that much later, which on-call can live with; a receiver never hears "resolved" for an
 * alert that is back a minute later.
 *
 * Chosen over "a minimum time firing before delivery" because that one still pages twice for a condition that
 * holds for ten minutes, clears for two and holds again, and it delays every first page.
 */
export const QUIET_BEFORE_RESOLVE_MS = 10 * 60_000;

/**
 * Kinds that resolve as soon as their condition ends: a hold ends only when a person clears it, a decision that does
 * not flap, and its coalesced notifications (hold-digests.ts) track the holds one by one.
 */
const RESOLVED_AT_ONCE: ReadonlySet<AlertKind> = new Set(['hold_opened']);

/** How long an alert of this kind must stay clear before it resolves, in milliseconds. */
export function quietTimeFor(kind: AlertKind): number {
  return RESOLVED_AT_ONCE.has(kind) ? 0 : QUIET_BEFORE_RESOLVE_MS;
}
