import { createHash } from 'node:crypto';

/**
 * Seeded chance for the demo fleet. Each decision is a pure function of the
 * seed and what it is about (task, step, attempt), so a run with a fixed seed
 * injects the same faults whatever the timing of the queue.
 */
export function chance(seed: number, ...about: (string | number)[]): number {
  const digest = createHash('sha256')
    .update(`${seed}:${about.join(':')}`)
    .digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

/** Picks one of the weighted options with `chance(...)`. */
export function pick<T>(roll: number, options: [T, number][]): T {
  const total = options.reduce((sum, [, weight]) => sum + weight, 0);
  let threshold = roll * total;
  for (const [option, weight] of options) {
    if (threshold < weight) return option;
    threshold -= weight;
  }
  return options.at(-1)![0];
}
