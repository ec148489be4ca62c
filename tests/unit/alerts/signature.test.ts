import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSigningSecret, signPayload, verifySignature } from '../../../packages/engine/src/alerts/signature';

const secret = 'whsec_test-secret';
const body = '{"id":"e1","event":"fired"}';
const sentAt = new Date('2026-11-30T12:00:00Z');

describe('alert signatures', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 as the documented recipe computes it', () => {
    const header = signPayload(secret, body, sentAt);
    const t = sentAt.getTime() / 1_000;
    const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(header).toBe(`t=${t},v1=${expected}`);
    expect(verifySignature(secret, header, body, { now: sentAt })).toEqual({ ok: true, timestamp: t });
  });

  it('refuses a changed body, another secret, a stale or future timestamp, and a malformed header, each by name', () => {
    const header = signPayload(secret, body, sentAt);
    expect(verifySignature(secret, header, `${body} `, { now: sentAt })).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifySignature('whsec_other', header, body, { now: sentAt })).toEqual({ ok: false, reason: 'mismatch' });
    const sixMinutes = 6 * 60_000;
    expect(verifySignature(secret, header, body, { now: new Date(sentAt.getTime() + sixMinutes) })).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifySignature(secret, header, body, { now: new Date(sentAt.getTime() - sixMinutes) })).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifySignature(secret, header, body, { now: new Date(sentAt.getTime() + 299_000) }).ok).toBe(true);
    expect(
      verifySignature(secret, header, body, { now: new Date(sentAt.getTime() + sixMinutes), toleranceSeconds: 600 }).ok,
    ).toBe(true);
    for (const malformed of [undefined, '', 'v1=abc', `t=${sentAt.getTime() / 1_000}`, 'nonsense', 't=x,v1=zz']) {
      expect(verifySignature(secret, malformed, body, { now: sentAt })).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('accepts any one of several v1 values, so a secret can be rotated', () => {
    const next = createSigningSecret();
    const header = signPayload([next, secret], body, sentAt);
    expect(header.split(',').filter((part) => part.startsWith('v1='))).toHaveLength(2);
    expect(verifySignature(secret, header, body, { now: sentAt }).ok).toBe(true);
    expect(verifySignature(next, header, body, { now: sentAt }).ok).toBe(true);
    expect(verifySignature('whsec_neither', header, body, { now: sentAt }).ok).toBe(false);
  });

  it('makes secrets of whsec_ and 32 random bytes in base64url, never the same twice', () => {
    const made = new Set(Array.from({ length: 50 }, createSigningSecret));
    expect(made.size).toBe(50);
    for (const each of made) {
      expect(each).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(each.slice('whsec_'.length), 'base64url')).toHaveLength(32);
    }
  });
});
