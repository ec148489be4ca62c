import { describe, expect, it } from 'vitest';
import {
  hostnameOf,
  hostRulesFrom,
  isAllowedHost,
  requestedHost,
  servedOverHttps,
} from '../../../lib/auth/request-host';
import { contentSecurityPolicy } from '../../../lib/auth/security-headers';

const local = hostRulesFrom({ HOLDFAST_PUBLIC_URL: undefined, HOLDFAST_TRUST_FORWARDED_HEADERS: '0' });
const deployed = hostRulesFrom({
  HOLDFAST_PUBLIC_URL: 'https://Holdfast.example.com',
  HOLDFAST_TRUST_FORWARDED_HEADERS: '1',
});

describe('the Host rule (DNS rebinding)', () => {
  it("answers loopback names on any port, and the public URL's host", () => {
    for (const host of ['localhost', 'localhost:3000', '127.0.0.1:3100', '[::1]:3000', '[::1]', 'LOCALHOST:80']) {
      expect(isAllowedHost(host, local), host).toBe(true);
    }
    expect(isAllowedHost('holdfast.example.com', deployed)).toBe(true);
    expect(isAllowedHost('holdfast.example.com:443', deployed)).toBe(true);
    expect(isAllowedHost('holdfast.example.com', local)).toBe(false);
  });

  it('refuses any other name, a missing Host and malformed values', () => {
    for (const host of [
      'rebind.attacker.example',
      'rebind.attacker.example:3100',
      '127.0.0.1.nip.io',
      'localhost.attacker.example',
      '0.0.0.0:3000',
      '10.0.0.4',
      'localhost:3000@evil',
      'localhost/x',
      '',
      undefined,
    ]) {
      expect(isAllowedHost(host, deployed), String(host)).toBe(false);
    }
    expect(hostnameOf('[::1]:3000')).toBe('[::1]');
  });

  it('reads X-Forwarded-Host and X-Forwarded-Proto only when told to trust them', () => {
    const headers = new Headers({
      host: '10.0.0.4:3000',
      'x-forwarded-host': 'holdfast.example.com, inner',
      'x-forwarded-proto': 'https',
    });
    expect(requestedHost(headers, deployed)).toBe('holdfast.example.com');
    expect(requestedHost(headers, local)).toBe('10.0.0.4:3000');
    // Untrusted, a forged X-Forwarded-Host cannot smuggle a rebinding name past the rule (nor a good one in).
    expect(
      requestedHost(new Headers({ host: 'rebind.attacker.example', 'x-forwarded-host': 'localhost' }), local),
    ).toBe('rebind.attacker.example');
    expect(servedOverHttps('http:', headers, deployed)).toBe(true);
    expect(servedOverHttps('http:', headers, local)).toBe(false);
    expect(servedOverHttps('https:', new Headers(), local)).toBe(true);
  });
});

describe('the content security policy', () => {
  it('allows scripts by nonce only, forbids framing, and adds eval only in development', () => {
    const policy = contentSecurityPolicy('abc123', { development: false });
    expect(policy).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-eval');
    expect(contentSecurityPolicy('abc123', { development: true })).toContain("'unsafe-eval'");
  });
});
