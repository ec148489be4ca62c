/**
 * When in its hour a benchmark's hour-turn pass runs: within the first minute, as the first pass of an hour
 * does (the sweep runs every minute). Not on the hour itself: there a named window's whole hours are one more
 * than the stored spans hold (they are planned for a reader inside the hour), so the pass sums every window
 * sum from the hourly and daily rows, a case a real pass meets once in 60,000.
 */
export const HOUR_TURN_PASS_OFFSET_MS = 20_000;
