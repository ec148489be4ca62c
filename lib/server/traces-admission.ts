import 'server-only';

/**
 * How much of an instance trace exporters may take at once, whoever sends what:
 * - a token has at most BATCHES_PER_TOKEN batches in flight (being read, waiting or being stored): past that,
 *   429 before the body is read;
 * - the instance decodes and stores at most WORKING_BATCHES batches at once, at most WORKING_PER_TOKEN of one
 *   token, so one exporter never holds every slot (and one of its batches waiting on a lock does not hold back
 *   the rest of its own); the others wait their turn, first come first served among tokens with a slot to
 *   spare, at most WAITING_BATCHES of them (past that, 429).
 * So trace ingest takes a bounded share of the instance's CPU and database however many requests arrive, an
 * exporter uploading slowly holds only its own token's places (bodies are read before a working slot is
 * taken), and batches of one token sent at once (a fleet's processes share one) are all taken, in turn.
 * OTLP exporters retry a 429 after the Retry-After it names.
 */
export const BATCHES_PER_TOKEN = 16;
export const WORKING_BATCHES = 3;
export const WORKING_PER_TOKEN = 2;
export const WAITING_BATCHES = 32;
export const RETRY_AFTER_SECONDS = 1;

export interface Slot {
  release(): void;
}

const inFlightByToken = new Map<number, number>();
const workingTokens = new Map<number, number>();
let working = 0;
const waiting: { tokenId: number; start: () => void }[] = [];

function once(release: () => void): Slot {
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      release();
    },
  };
}

/** One of the token's places, taken before its batch's body is read; undefined when it has all of them. */
export function admitTokenBatch(tokenId: number): Slot | undefined {
  const inFlight = inFlightByToken.get(tokenId) ?? 0;
  if (inFlight >= BATCHES_PER_TOKEN) return undefined;
  inFlightByToken.set(tokenId, inFlight + 1);
  return once(() => {
    const left = (inFlightByToken.get(tokenId) ?? 1) - 1;
    if (left === 0) inFlightByToken.delete(tokenId);
    else inFlightByToken.set(tokenId, left);
  });
}

/**
 * A working slot for a read batch of the token: at once when one is free and the token has one to spare, else
 * when its turn comes; undefined when too many batches wait already.
 */
export function admitBatchWork(tokenId: number): Promise<Slot> | undefined {
  if (mayStart(tokenId)) return Promise.resolve(start(tokenId));
  if (waiting.length >= WAITING_BATCHES) return undefined;
  return new Promise((resolve) => waiting.push({ tokenId, start: () => resolve(start(tokenId)) }));
}

function mayStart(tokenId: number): boolean {
  return working < WORKING_BATCHES && (workingTokens.get(tokenId) ?? 0) < WORKING_PER_TOKEN;
}

function start(tokenId: number): Slot {
  working += 1;
  workingTokens.set(tokenId, (workingTokens.get(tokenId) ?? 0) + 1);
  return once(() => {
    working -= 1;
    const left = (workingTokens.get(tokenId) ?? 1) - 1;
    if (left === 0) workingTokens.delete(tokenId);
    else workingTokens.set(tokenId, left);
    startNextWaiting();
  });
}

/** Starts the first waiting batches whose tokens have a slot to spare, while slots are free. */
function startNextWaiting(): void {
  for (let index = 0; index < waiting.length && working < WORKING_BATCHES; ) {
    const next = waiting[index]!;
    if (!mayStart(next.tokenId)) {
      index += 1;
      continue;
    }
    waiting.splice(index, 1);
    next.start();
  }
}

/** A token refused again within this long of its last refusal is answered only after it (see answerRefusal). */
export const REPEAT_REFUSAL_DELAY_MS = 1_000;
const lastRefusedAt = new Map<number, number>();

/**
 * A refusal of a token that was refused less than REPEAT_REFUSAL_DELAY_MS ago is sent after that delay, its
 * connection held unread meanwhile: an exporter that honours Retry-After loses nothing, and one that sends again
 * at once (an abusive one) makes at most one request a second per connection instead of hundreds, each of which
 * would cost the instance a request's handling. `now` is the clock (an input, for tests).
 */
export async function answerRefusal(
  tokenId: number,
  response: Response,
  now: () => number = Date.now,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<Response> {
  const at = now();
  const last = lastRefusedAt.get(tokenId);
  lastRefusedAt.set(tokenId, at);
  if (lastRefusedAt.size > 10_000) lastRefusedAt.clear();
  if (last !== undefined && at - last < REPEAT_REFUSAL_DELAY_MS) await sleep(REPEAT_REFUSAL_DELAY_MS);
  return response;
}
