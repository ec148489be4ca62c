/**
 * When in its hour a benchmark's hour-turn pass runs: within the first minute, as the first pass of an hour
 * does (the sweep runs every minute). Not on the hour itself, a moment a real pass meets once in 60,000 (and
 * where, while the rollups kept window sums, the pass summed every one of them afresh from the hourly rows).
 */
export const HOUR_TURN_PASS_OFFSET_MS = 20_000;
