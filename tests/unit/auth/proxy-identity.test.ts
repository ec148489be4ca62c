import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { parsePersonEmail } from '../../../packages/engine/src/core/identity/email';
import { proxyRefusal, resolveProxyIdentity, type ProxySettings } from '../../../lib/auth/proxy-identity';
import { signSessionToken, verifySessionToken } from '../../../lib/auth/session-token';

const settings: ProxySettings = {
  secret: 'proxy-shared-secret-123',
  secretHeader: 'x-holdfast-proxy-secret',
  emailHeader: 'x-forwarded-email',
  groupsHeader: 'x-forwarded-groups',
  roleMap: 'sre=admin, oncall=responder',
};
const request = (values: Record<string, string>) => new Headers(values);

describe('resolveProxyIdentity', () => {
  it('refuses headers without the shared secret, or with a wrong one', () => {
    expect(resolveProxyIdentity(request({ 'x-forwarded-email': 'eve@example.com' }), settings)).toEqual({
      ok: false,
      reason: 'secret',
    });
    expect(
      resolveProxyIdentity(
        request({ 'x-holdfast-proxy-secret': 'proxy-shared-secret-124', 'x-forwarded-email': 'eve@example.com' }),
        settings,
      ),
    ).toEqual({ ok: false, reason: 'secret' });
  });

  it('maps groups to the highest role they grant, and names no role for groups the map does not name', () => {
    const asGroups = (groups: string) =>
      resolveProxyIdentity(
        request({
          'x-holdfast-proxy-secret': settings.secret,
          'x-forwarded-email': 'Sam@Example.com',
          'x-forwarded-groups': groups,
        }),
        settings,
      );
    expect(asGroups('oncall,eng')).toEqual({ ok: true, email: 'sam@example.com', mappedRole: 'responder' });
    expect(asGroups('oncall sre')).toEqual({ ok: true, email: 'sam@example.com', mappedRole: 'admin' });
    // Left to Holdfast: a person first seen becomes a viewer, a known one keeps their role.
    expect(asGroups('marketing')).toEqual({ ok: true, email: 'sam@example.com', mappedRole: undefined });
    expect(asGroups('')).toEqual({ ok: true, email: 'sam@example.com', mappedRole: undefined });
  });

  it('refuses a trusted request that names nobody', () => {
    expect(resolveProxyIdentity(request({ 'x-holdfast-proxy-secret': settings.secret }), settings)).toEqual({
      ok: false,
      reason: 'email',
    });
  });
});

describe('session tokens', () => {
  it('name the person when signed with the secret, and nobody otherwise', async () => {
    const secret = 'a'.repeat(32);
    const token = await signSessionToken({ email: 'vera@example.com', sessionVersion: 4 }, secret);
    expect(await verifySessionToken(token, secret)).toEqual({ email: 'vera@example.com', sessionVersion: 4 });
    expect(await verifySessionToken(token, 'b'.repeat(32))).toBeUndefined();
    expect(await verifySessionToken(`${token}x`, secret)).toBeUndefined();
    expect(await verifySessionToken(undefined, secret)).toBeUndefined();
  });

  it('are refused without an expiry or a session version: such a token could never be ended', async () => {
    const secret = 'a'.repeat(32);
    const key = new TextEncoder().encode(secret);
    const sign = (claims: Record<string, unknown>, expires: boolean) => {
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('vera@example.com').setIssuedAt();
      return (expires ? jwt.setExpirationTime('1h') : jwt).sign(key);
    };
    expect(await verifySessionToken(await sign({ sv: 1 }, false), secret)).toBeUndefined();
    expect(await verifySessionToken(await sign({}, true), secret)).toBeUndefined();
    expect(await verifySessionToken(await sign({ sv: '1' }, true), secret)).toBeUndefined();
    expect(await verifySessionToken(await sign({ sv: 1 }, true), secret)).toEqual({
      email: 'vera@example.com',
      sessionVersion: 1,
    });
  });
});

describe('one e-mail rule for the proxy and people management', () => {
  it('refuses `a@b` from the proxy with a 403 naming the header, instead of a 500 later', () => {
    const identity = resolveProxyIdentity(
      request({ 'x-holdfast-proxy-secret': settings.secret, 'x-forwarded-email': 'a@b' }),
      settings,
    );
    expect(identity).toEqual({ ok: false, reason: 'email' });
    expect(proxyRefusal(identity, settings)).toEqual({
      status: 403,
      text: expect.stringContaining('x-forwarded-email'),
    });
    expect(proxyRefusal({ ok: false, reason: 'secret' }, settings).status).toBe(401);
  });

  it('lowercases and trims good addresses and refuses the rest', () => {
    expect(parsePersonEmail(' Eve@Example.COM ')).toBe('eve@example.com');
    for (const bad of ['a@b', 'a b@example.com', '@example.com', 'eve@', '', `${'x'.repeat(200)}@example.com`, 42]) {
      expect(parsePersonEmail(bad)).toBeUndefined();
    }
  });
});
