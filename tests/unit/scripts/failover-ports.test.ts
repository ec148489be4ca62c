import { describe, expect, it } from 'vitest';
import { PORTS_FETCH_REFUSES } from '../../../scripts/ci/failover/ports';

/** Every port fetch refuses in the failover suite's ranges is left out by it, and fetch refuses no other. */
describe('the failover suite’s ports', () => {
  it('leave out exactly the ports fetch refuses to connect to', async () => {
    const ranges = [
      [6500, 6599],
      [54500, 54599],
    ] as const;
    const refused: number[] = [];
    for (const [first, last] of ranges) {
      for (let port = first; port <= last; port += 1) {
        // Nothing listens there, or something does: either way fetch tries, unless it refuses the port itself.
        const outcome = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) }).then(
          () => 'answered',
          (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
        );
        if (outcome === 'bad port') refused.push(port);
      }
    }
    expect(refused).toEqual([...PORTS_FETCH_REFUSES].sort((a, b) => a - b));
  });
});
