/**
 * Agents posting attempt batches while PostgreSQL comes and goes: every batch
 * carries an Idempotency-Key, and a writer retries the same batch with the
 * same key on 503 and on "in progress" until it is acknowledged or its time
 * is up. Everything a writer saw is counted, so the suite can say that no
 * 500 ever came back and how long a key was refused after the outage.
 */

export const ATTEMPTS_PER_BATCH = 20;
const BATCH_DEADLINE_MS = 45_000;

export interface WriterLog {
  acked: string[];
  gaveUp: string[];
  statuses: Record<string, number>;
  /** Batches answered with a 5xx other than 503, with what came back. */
  errors: string[];
  /** When each 503 and each 409 came (ms since the epoch), to place them around the outage. */
  unavailableAt: number[];
  inProgressAt: number[];
  ackedAt: number[];
}

export function newWriterLog(): WriterLog {
  return { acked: [], gaveUp: [], statuses: {}, errors: [], unavailableAt: [], inProgressAt: [], ackedAt: [] };
}

export function batchBody(batchId: string): string {
  const startedAt = new Date(Date.now() - 2_000).toISOString();
  const finishedAt = new Date().toISOString();
  const attempts = Array.from({ length: ATTEMPTS_PER_BATCH }, (_, index) => ({
    taskId: `${batchId}#${index}`,
    agent: 'fault-writer',
    step: 'write_batch',
    attemptNumber: 1,
    startedAt,
    finishedAt,
    outcome: 'succeeded',
    costMicros: 1,
  }));
  return JSON.stringify({ attempts });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Posts one batch until it is acknowledged (true) or its deadline passes (false). */
/**
 * How a request that got no answer is counted: the error's name and, for fetch's "fetch failed", the cause's
 * code (ECONNREFUSED: nothing listens; ECONNRESET, UND_ERR_SOCKET: the connection dropped), or its message where
 * it has none ("bad port": fetch refused the port itself), so a failed run says which.
 */
export function networkStatus(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return `network:${(error as Error).name}${detail ? `:${detail}` : ''}`;
}

export async function postUntilAcknowledged(
  baseUrl: string,
  token: string,
  batchId: string,
  log: WriterLog,
  /** The batch's body: copies of one batch sent at once must carry the same one (else the key says "reused"). */
  body = batchBody(batchId),
): Promise<boolean> {
  const deadline = Date.now() + BATCH_DEADLINE_MS;
  while (Date.now() < deadline) {
    let status: string;
    let retryAfterMs = 200;
    try {
      const response = await fetch(`${baseUrl}/api/v1/attempts/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': batchId },
        body,
        // Longer than the server's own database deadline (10 s), which answers 503 first.
        signal: AbortSignal.timeout(20_000),
      });
      status = String(response.status);
      const text = await response.text();
      if (response.status === 200) {
        log.statuses[status] = (log.statuses[status] ?? 0) + 1;
        return true;
      }
      if (response.status >= 500 && response.status !== 503)
        log.errors.push(`${batchId}: ${status} ${text.slice(0, 300)}`);
      if (response.status === 503) log.unavailableAt.push(Date.now());
      if (response.status === 503 && response.headers.get('retry-after') === null)
        log.errors.push(`${batchId}: 503 without Retry-After`);
      if (response.status === 409) log.inProgressAt.push(Date.now());
      if (response.status !== 503 && response.status !== 409) {
        log.statuses[status] = (log.statuses[status] ?? 0) + 1;
        if (response.status < 500) log.errors.push(`${batchId}: unexpected ${status} ${text.slice(0, 300)}`);
        return false;
      }
      // Honour Retry-After, but poll faster than it asks: the suite wants to see recovery promptly.
      retryAfterMs = Math.min(Number(response.headers.get('retry-after') ?? '1') * 1_000, 250);
    } catch (error) {
      status = networkStatus(error);
    }
    log.statuses[status] = (log.statuses[status] ?? 0) + 1;
    await pause(retryAfterMs);
  }
  return false;
}

/** One writer: batch after batch until `keepGoing` says stop. */
export async function runWriter(
  baseUrl: string,
  token: string,
  writer: number,
  keepGoing: () => boolean,
  log: WriterLog,
): Promise<void> {
  for (let batch = 0; keepGoing() && batch < 10_000; batch += 1) {
    const batchId = `w${writer}-b${batch}`;
    if (await postUntilAcknowledged(baseUrl, token, batchId, log)) {
      log.acked.push(batchId);
      log.ackedAt.push(Date.now());
    } else {
      log.gaveUp.push(batchId);
    }
  }
}
