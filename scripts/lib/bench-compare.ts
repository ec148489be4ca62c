/**
 * Shared by the benchmarks that set two sides beside each other (library and
 * raw ceiling, HTTP and in-process): one way to measure a side and one way to
 * run the rounds, so that both sides get the same treatment.
 */
export interface Figures {
  /** Items per second (a call of a batch counts its items). */
  perSecond: number;
  /** Latency of one call, in milliseconds. */
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** Calls measured: the percentiles above come from this many samples. */
  calls: number;
}

/**
 * Calls `oneCall` from `workers` concurrent loops until `seconds` have passed,
 * timing each call; `itemsPerCall` counts a batch's items in the rate.
 */
export async function measureLoops(
  workers: number,
  seconds: number,
  oneCall: () => Promise<unknown>,
  itemsPerCall = 1,
): Promise<Figures> {
  const latencies: number[] = [];
  const began = performance.now();
  const deadline = began + seconds * 1_000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < deadline) {
        const start = performance.now();
        await oneCall();
        latencies.push(performance.now() - start);
      }
    }),
  );
  const elapsed = (performance.now() - began) / 1_000;
  latencies.sort((a, b) => a - b);
  const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))] ?? 0;
  return {
    perSecond: (latencies.length * itemsPerCall) / elapsed,
    p50Ms: at(0.5),
    p95Ms: at(0.95),
    p99Ms: at(0.99),
    calls: latencies.length,
  };
}

export interface AlternateOptions {
  /** Measured rounds per side. */
  rounds: number;
  /** Length of a measured round. */
  seconds: number;
  /** Length of the discarded warm-up round each side gets first (default: `seconds`). */
  warmUpSeconds?: number;
}

/**
 * Runs two sides alike: a discarded warm-up round each (compiled code, pooled
 * connections, prepared statements, cached pages), then `rounds` measured
 * rounds each, alternating which side goes first so that drift in a shared
 * machine's load falls on both. Returns the measured rounds of each side.
 */
export async function alternateRounds<F>(
  sides: readonly [(seconds: number) => Promise<F>, (seconds: number) => Promise<F>],
  { rounds, seconds, warmUpSeconds = seconds }: AlternateOptions,
): Promise<[F[], F[]]> {
  const [first, second] = sides;
  await first(warmUpSeconds);
  await second(warmUpSeconds);
  const firstRounds: F[] = [];
  const secondRounds: F[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // The warm-up ran first then second, so the measured rounds begin with second.
    const order = [
      async () => secondRounds.push(await second(seconds)),
      async () => firstRounds.push(await first(seconds)),
    ];
    for (const run of round % 2 === 0 ? order : order.reverse()) await run();
  }
  return [firstRounds, secondRounds];
}

/**
 * Runs any number of sides alike: a discarded warm-up round each, then
 * `rounds` measured rounds in which the order rotates, so each side goes first
 * in turn and drift in a shared machine's load falls on all of them. Returns
 * the measured rounds of each side, in the order the sides were given.
 */
export async function rotateRounds<F>(
  sides: readonly ((seconds: number) => Promise<F>)[],
  { rounds, seconds, warmUpSeconds = seconds }: AlternateOptions,
): Promise<F[][]> {
  for (const side of sides) await side(warmUpSeconds);
  const measured: F[][] = sides.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const index of rotationOf(sides.length, round)) measured[index]!.push(await sides[index]!(seconds));
  }
  return measured;
}

/** The order of the sides in one round: round r starts with side r (mod the count) and goes on from there. */
export function rotationOf(count: number, round: number): number[] {
  return Array.from({ length: count }, (_, offset) => (round + offset) % count);
}

/** The round with the median of `pick` (its other figures come with it). */
export function medianRound<F>(rounds: readonly F[], pick: (figures: F) => number): F {
  if (rounds.length === 0) throw new Error('bench: no rounds to take a median of');
  return [...rounds].sort((a, b) => pick(a) - pick(b))[Math.floor(rounds.length / 2)]!;
}

/** The median of one figure across rounds. */
export function medianOf<F>(rounds: readonly F[], pick: (figures: F) => number): number {
  return pick(medianRound(rounds, pick));
}

/** Timings in milliseconds as "median X ms, p95 Y ms"; a p95 only from 20 samples or more, else "max of n". */
export function describeTimings(samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const label = sorted.length >= 20 ? 'p95' : `max of ${sorted.length}`;
  const tail = sorted.length >= 20 ? sorted[Math.ceil(sorted.length * 0.95) - 1]! : sorted[sorted.length - 1]!;
  return `median ${median.toFixed(0)} ms, ${label} ${tail.toFixed(0)} ms`;
}
