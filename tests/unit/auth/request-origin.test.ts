import { describe, expect, it } from 'vitest';
import { judgeOrigin } from '../../../lib/auth/request-origin';

const refused = (reason: string) => ({ allowed: false, reason });

describe("a server action's Origin", () => {
  it("must be the request's own host and port, a missing port being the scheme's default", () => {
    expect(judgeOrigin('http://localhost:3000', { host: 'localhost:3000', https: false })).toEqual({ allowed: true });
    expect(judgeOrigin('http://[::1]:3000', { host: '[::1]:3000', https: false })).toEqual({ allowed: true });
    expect(judgeOrigin('http://LOCALHOST:3000', { host: 'LocalHost:3000', https: false })).toEqual({ allowed: true });
    expect(judgeOrigin('http://localhost:1', { host: 'localhost:3000', https: false })).toEqual(
      refused('Origin localhost:1 is not localhost:3000'),
    );
    expect(judgeOrigin('https://holdfast.example.com', { host: 'holdfast.example.com', https: true })).toEqual({
      allowed: true,
    });
    expect(judgeOrigin('https://holdfast.example.com:443', { host: 'holdfast.example.com:443', https: true })).toEqual({
      allowed: true,
    });
    expect(judgeOrigin('http://holdfast.example.com', { host: 'holdfast.example.com', https: true })).toEqual(
      refused('Origin holdfast.example.com:80 is not holdfast.example.com:443'),
    );
    // The scheme itself is not compared: a TLS proxy this Holdfast does not trust makes an https page's post look
    // like plain http here, and one port does not serve two schemes.
    expect(judgeOrigin('https://localhost:3000', { host: 'localhost:3000', https: false })).toEqual({ allowed: true });
    expect(judgeOrigin('http://[::1]:1', { host: '[::1]:3000', https: false })).toEqual(
      refused('Origin [::1]:1 is not [::1]:3000'),
    );
  });

  it("or HOLDFAST_PUBLIC_URL's origin (behind a proxy that rewrites the Host), and no other port of it", () => {
    const behindProxy = { host: '127.0.0.1:3000', https: false, publicUrl: 'https://holdfast.example.com/console' };
    expect(judgeOrigin('https://holdfast.example.com', behindProxy)).toEqual({ allowed: true });
    expect(judgeOrigin('https://holdfast.example.com:8443', behindProxy)).toEqual(
      refused('Origin holdfast.example.com:8443 is not 127.0.0.1:3000'),
    );
    expect(judgeOrigin('http://holdfast.example.com', behindProxy)).toMatchObject({ allowed: false });
  });

  it('refuses what is not a web origin', () => {
    for (const origin of ['null', '', 'file://', 'chrome-extension://abc', 'localhost:3000']) {
      expect(judgeOrigin(origin, { host: 'localhost:3000', https: false })).toMatchObject({ allowed: false });
    }
    expect(judgeOrigin('http://localhost:3000', { host: undefined, https: false })).toEqual(
      refused('Origin localhost:3000 is not this Holdfast'),
    );
  });
});
