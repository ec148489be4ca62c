import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The Holdfast-Signature header of a webhook delivery, like Stripe's and
 * Slack's: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * The timestamp is signed with the body, so a captured delivery cannot be
 * replayed outside the tolerance window; several v1 values may be sent while a
 * secret is rotated, and any one matching is enough. No database code here: a
 * receiver written in TypeScript may import this file alone.
 */
export const SIGNATURE_HEADER = 'Holdfast-Signature';

/** How far a signature's timestamp may be from the receiver's clock, either way. */
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes, base64url. Shown once, when the channel is made. */
export function createSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

function hmacHex(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The header value for `body` sent at `now` (one v1 per secret given; pass the new and the old one while rotating). */
export function signPayload(secret: string | readonly string[], body: string, now: Date = new Date()): string {
  const timestamp = Math.floor(now.getTime() / 1_000);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return [`t=${timestamp}`, ...secrets.map((each) => `v1=${hmacHex(each, timestamp, body)}`)].join(',');
}

export type SignatureVerdict =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' };

/**
 * Checks a Holdfast-Signature header against the raw body as received (the
 * bytes, not a re-serialised parse: any change of whitespace breaks the HMAC).
 * `malformed`: no timestamp or no v1; `stale`: the timestamp is outside the
 * tolerance (a replay, or a clock far off); `mismatch`: no v1 matches.
 */
export function verifySignature(
  secret: string,
  header: string | null | undefined,
  rawBody: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): SignatureVerdict {
  if (!header) return { ok: false, reason: 'malformed' };
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) candidates.push(value.toLowerCase());
  }
  if (timestamp === undefined || candidates.length === 0) return { ok: false, reason: 'malformed' };

  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1_000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - timestamp) > tolerance) return { ok: false, reason: 'stale' };

  const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), 'hex');
  // Every candidate is compared in constant time, and all of them, so timing tells nothing about which one was close.
  let matched = false;
  for (const candidate of candidates) {
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  return matched ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}
