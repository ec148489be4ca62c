import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type ReadDb = typeof import('../../../lib/server/read-source/replica');

/**
 * The replica's sampling against a server that accepts connections and never
 * answers (a hung replica): callers share one sample, it gives up within its
 * deadline, and the verdict is kept for a while instead of asked again.
 */
let server: net.Server;
let connections = 0;
let sampleReplica: ReadDb['sampleReplica'];
const sockets: net.Socket[] = [];

beforeAll(async () => {
  server = net.createServer((socket) => {
    connections += 1;
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  // Read once by getEnvironment, so set before replica.ts first asks.
  process.env.DATABASE_READ_URL = `postgres://holdfast_app:secret@127.0.0.1:${port}/holdfast`;
  ({ sampleReplica } = await import('../../../lib/server/read-source/replica'));
}, 30_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  delete process.env.DATABASE_READ_URL;
});

describe('sampling the replica', () => {
  it('gives up on a replica that does not answer within its deadline, once for every caller at the same time', async () => {
    const started = Date.now();
    const samples = await Promise.all(Array.from({ length: 5 }, () => sampleReplica()));
    expect(Date.now() - started).toBeLessThan(3_000);
    for (const sample of samples) expect(sample).toEqual({ reachable: false });
    expect(connections).toBe(1);
  });

  it('keeps an unreachable verdict for a few seconds: the next caller is answered at once, without a connection', async () => {
    const started = Date.now();
    expect(await sampleReplica()).toEqual({ reachable: false });
    expect(Date.now() - started).toBeLessThan(50);
    expect(connections).toBe(1);
  });
});
