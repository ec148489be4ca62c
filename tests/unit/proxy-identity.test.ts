import { describe, expect, it } from 'vitest';
import { resolveProxyIdentity, type ProxySettings } from '../../lib/auth/proxy-identity';
import { signSessionToken, verifySessionToken } from '../../lib/auth/session-token';

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
    expect(resolveProxyIdentity(request({ 'x-forwarded-email': 'eve@example.com' }), settings)).toEqual({ ok: false, reason: 'secret' });
    expect(
      resolveProxyIdentity(request({ 'x-holdfast-proxy-secret': 'proxy-shared-secret-124', 'x-forwarded-email': 'eve@example.com' }), settings),
    ).toEqual({ ok: false, reason: 'secret' });
  });

  it('maps groups to the highest role they grant, and anyone else to viewer', () => {
    const asGroups = (groups: string) =>
      resolveProxyIdentity(
        request({ 'x-holdfast-proxy-secret': settings.secret, 'x-forwarded-email': 'Sam@Example.com', 'x-forwarded-groups': groups }),
        settings,
      );
    expect(asGroups('oncall,eng')).toEqual({ ok: true, email: 'sam@example.com', role: 'responder' });
    expect(asGroups('oncall sre')).toEqual({ ok: true, email: 'sam@example.com', role: 'admin' });
    expect(asGroups('marketing')).toEqual({ ok: true, email: 'sam@example.com', role: 'viewer' });
  });

  it('refuses a trusted request that names nobody', () => {
    expect(resolveProxyIdentity(request({ 'x-holdfast-proxy-secret': settings.secret }), settings)).toEqual({ ok: false, reason: 'email' });
  });
});

describe('session tokens', () => {
  it('name the person when signed with the secret, and nobody otherwise', async () => {
    const secret = 'a'.repeat(32);
    const token = await signSessionToken('vera@example.com', secret);
    expect(await verifySessionToken(token, secret)).toBe('vera@example.com');
    expect(await verifySessionToken(token, 'b'.repeat(32))).toBeUndefined();
    expect(await verifySessionToken(`${token}x`, secret)).toBeUndefined();
    expect(await verifySessionToken(undefined, secret)).toBeUndefined();
  });
});
