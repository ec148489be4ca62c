import net from 'node:net';

/**
 * A free loopback port in a range set aside for this suite (54500-54599 for
 * PostgreSQL, 6500-6599 for everything else), so its servers never take a port
 * another suite on the machine expects. Ports handed out here are not handed
 * out again in this process.
 */
const handedOut = new Set<number>();

/**
 * Ports that fetch refuses to connect to (the Fetch standard's "bad ports": it fails at once with "fetch failed",
 * cause "bad port"), within the ranges below. A Holdfast server given 6566 answered none of the writers' requests,
 * and the suite failed on network errors (3 runs of 9 on 2026-12-04).
 */
export const PORTS_FETCH_REFUSES = new Set([6566]);

export async function freePortIn(first: number, last: number): Promise<number> {
  const start = first + Math.floor(Math.random() * (last - first + 1));
  for (let offset = 0; offset <= last - first; offset += 1) {
    const port = first + ((start - first + offset) % (last - first + 1));
    if (handedOut.has(port) || PORTS_FETCH_REFUSES.has(port) || !(await isFree(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`No free port in ${first}-${last}`);
}

export const postgresPort = () => freePortIn(54500, 54599);
export const otherPort = () => freePortIn(6500, 6599);

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
