/**
 * Whether this instance is stopping. scripts/start.ts sets it on SIGTERM/SIGINT,
 * and /api/health reads it to answer 503, so a load balancer sends its next
 * requests elsewhere. No `server-only`: start.ts runs outside Next.
 */

// On globalThis, not in a module variable: Next bundles the route handlers apart
// from start.ts's modules, so each side would get its own copy of this file.
const holder = globalThis as typeof globalThis & { holdfastDrainingSince?: Date };

/** From now on the instance is draining; it never goes back, it exits. */
export function markDraining(now = new Date()): void {
  holder.holdfastDrainingSince ??= now;
}

export function isDraining(): boolean {
  return holder.holdfastDrainingSince !== undefined;
}

/** Tests only: a test that drained this process puts it back for the next one. */
export function clearDrainingForTests(): void {
  holder.holdfastDrainingSince = undefined;
}
