/** Time is an input: a clock a test moves by hand, never by sleeping. */
export function handClock(start = new Date()) {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}
