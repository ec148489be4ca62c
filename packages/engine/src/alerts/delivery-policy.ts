import { urlHint } from './channel-input';
/**
 * What one try got: the receiver's status (and Retry-After), why it could not
 * be reached, or why Holdfast's outbound rule refused to send it at all.
 */
export type SendOutcome =
  | { statusCode: number; retryAfter: string | null; durationMs: number }
  | { error: string; durationMs: number }
  | { refused: string; durationMs: number };

export type DeliveryDecision =
  | { kind: 'delivered' }
  | { kind: 'retry'; delayMs: number; reason: string }
  | { kind: 'failed'; reason: string };

/** The first retry waits this long; each next one twice as long... */
export const FIRST_RETRY_DELAY_MS = 10_000;
/** ...up to this. */
export const MAX_RETRY_DELAY_MS = 3_600_000;
/**
 * A receiver down this long is given up on (the row failed, the channel marked
 * failing): three days outlast a weekend's outage, and an alert older than that
 * is history, which the console keeps.
 */
export const GIVE_UP_AFTER_MS = 72 * 3_600_000;

/**
 * What to do after a try. 2xx: delivered. 408, 429, 5xx and network errors
 * are the receiver's passing trouble: retried with exponential backoff (or
 * after its Retry-After, within the cap). Any other answer (4xx, a redirect)
 * will not change by itself: failed at once, and the channel marked failing;
 * so is a destination the outbound rule refuses.
 */
export function decideDelivery(outcome: SendOutcome, attempt: number, ageMs: number, now: Date): DeliveryDecision {
  // The destination is inside: it will not move out by itself (and if its DNS does, it is not to be trusted).
  if ('refused' in outcome) return { kind: 'failed', reason: `refused by policy: ${outcome.refused}` };
  if ('statusCode' in outcome && outcome.statusCode >= 200 && outcome.statusCode < 300) return { kind: 'delivered' };
  const transient =
    'error' in outcome ||
    outcome.statusCode === 408 ||
    outcome.statusCode === 429 ||
    (outcome.statusCode >= 500 && outcome.statusCode < 600);
  const redirect = 'statusCode' in outcome && outcome.statusCode >= 300 && outcome.statusCode < 400;
  const reason =
    'error' in outcome
      ? outcome.error
      : `the receiver answered HTTP ${outcome.statusCode}${redirect ? ' (a redirect: not followed)' : ''}`;
  if (!transient) return { kind: 'failed', reason };
  if (ageMs >= GIVE_UP_AFTER_MS) {
    return {
      kind: 'failed',
      reason: `gave up after ${GIVE_UP_AFTER_MS / 3_600_000} hours of retries; last: ${reason}`,
    };
  }
  const backoff = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.min(attempt - 1, 20));
  const asked = 'statusCode' in outcome ? retryAfterMs(outcome.retryAfter, now) : undefined;
  return { kind: 'retry', delayMs: asked === undefined ? backoff : Math.min(MAX_RETRY_DELAY_MS, asked), reason };
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}

/**
 * Why a try could not reach the receiver, without the URL: a Slack webhook's
 * path is its secret, and fetch's errors may quote it. The cause's code
 * (ECONNREFUSED, ENOTFOUND) is what on-call needs.
 */
export function describeFailure(error: unknown, url: string): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'no answer within the delivery timeout';
  }
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      parts.push(typeof code === 'string' ? `${current.message} (${code})` : current.message);
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return scrubUrl(parts.join(': ') || 'unknown error', url).slice(0, 500);
}

/** Replaces the URL, and its path and query alone, wherever they appear. */
export function scrubUrl(text: string, url: string): string {
  let scrubbed = text;
  let hint = '[channel URL]';
  try {
    const parsed = new URL(url);
    hint = urlHint(url);
    const secretPart = `${parsed.pathname}${parsed.search}`;
    scrubbed = scrubbed.split(url).join(hint);
    if (secretPart.length > 1) scrubbed = scrubbed.split(secretPart).join('/…');
  } catch {
    scrubbed = scrubbed.split(url).join(hint);
  }
  return scrubbed;
}
