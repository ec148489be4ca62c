import { startWriterLoops } from './writer-loops';
import { batchBody, newWriterLog, postUntilAcknowledged, type WriterLog } from '../faults/writers';

/**
 * Keyed writers over several Holdfast instances: each batch carries an
 * Idempotency-Key and is posted to two instances at once (a redelivery racing
 * the first delivery, as behind a load balancer), and each copy retries on 503
 * and on "in progress" until it is acknowledged. The log holds every status
 * seen, so the suite can say that nothing but 200, 409 and 503 came back.
 */
export interface KeyedWriters {
  log: WriterLog;
  /** Stops starting new batches and waits for those in flight. */
  stop(): Promise<void>;
}

export function startKeyedWriters(baseUrls: string[], token: string, writers: number, prefix: string): KeyedWriters {
  const log = newWriterLog();
  const loops = startWriterLoops(
    writers,
    async (writer, batch) => {
      const batchId = `${prefix}-w${writer}-b${batch}`;
      const first = baseUrls[(writer + batch) % baseUrls.length]!;
      const second = baseUrls[(writer + batch + 1) % baseUrls.length]!;
      const body = batchBody(batchId);
      const copies = await Promise.all([
        postUntilAcknowledged(first, token, batchId, log, body),
        postUntilAcknowledged(second, token, batchId, log, body),
      ]);
      return { id: batchId, acknowledged: copies.some(Boolean) };
    },
    { acknowledged: log.acked, acknowledgedAt: log.ackedAt, gaveUp: log.gaveUp },
  );
  return { log, stop: () => loops.stop() };
}
