import { describe, expect, it } from 'vitest';
import {
  formatAddress,
  judgeAddress,
  parseAllowList,
  parseIpLiteral,
  parseIPv4,
  type AllowList,
} from '../../../packages/engine/src/net/outbound-address';
import { parseEnvironment } from '../../../packages/engine/src/env';

const nothingAllowed = parseAllowList('');

/** The verdict for an address written as a URL host would be, with `list`. */
function judge(host: string, list: AllowList = nothingAllowed, hostname = 'receiver.example') {
  const address = parseIpLiteral(host);
  if (!address) throw new Error(`not an address: ${host}`);
  return judgeAddress(list, hostname, address);
}

const refusedBecause = (what: string) => ({ allowed: false, reason: expect.stringContaining(what) });

describe('the outbound address rule', () => {
  // Every internal form the rule names, with what the refusal calls it.
  const internal: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    // IPv6 forms carrying an internal IPv4 address are judged as that address.
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    // IPv4-translated (::ffff:0:0:0/96), in both spellings, and the other forms that embed one.
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['0:0:0:0:ffff:0:a9fe:a9fe', 'link-local'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:0:0', 'unspecified'],
    ['::ffff:7f00:1', 'loopback'],
    ['::a9fe:a9fe', 'link-local'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101:1::1', 'private'],
    // Refused whole, whatever they carry: local-use NAT64 and Teredo (here carrying the public 8.8.8.8).
    ['64:ff9b:1::808:808', 'local NAT64'],
    ['64:ff9b:1:ffff::7f00:1', 'local NAT64'],
    ['2001:0:808:808::f7f7:f7f7', 'Teredo'],
  ];

  it.each(internal)('refuses %s (%s)', (host, what) => {
    expect(judge(host)).toEqual(refusedBecause(what));
  });

  it.each([
    ['2130706433', 'decimal'],
    ['0x7f000001', 'hexadecimal'],
    ['0x7f.1', 'hexadecimal, two parts'],
    ['0177.0.0.1', 'octal'],
    ['017700000001', 'octal, one part'],
    ['127.1', 'two parts'],
    ['0x7F.0.0.0x1', 'mixed'],
  ])('reads %s (%s) as 127.0.0.1, and refuses it', (host) => {
    expect(formatAddress(parseIPv4(host)!)).toBe('127.0.0.1');
    expect(judge(host)).toEqual(refusedBecause('loopback'));
  });

  it('reads 169.254.169.254 in its other spellings too', () => {
    for (const host of ['2852039166', '0xa9fea9fe', '0251.0376.0251.0376', '169.16689662']) {
      expect(judge(host)).toEqual(refusedBecause('link-local'));
    }
  });

  it('takes no number out of range or a name for an address', () => {
    for (const text of ['256.1.1.1', '1.2.3.4.5', '08.1.1.1', '4294967296', 'example.com', '1.2.3.', '']) {
      expect(parseIPv4(text)).toBeNull();
    }
    expect(parseIpLiteral('fe80::1%eth0')).toBeNull();
  });

  it('allows public addresses, whatever the spelling', () => {
    for (const host of [
      '93.184.215.14',
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
      '::ffff:0:8.8.8.8',
      '::ffff:0:808:808',
      '2002:808:808::1',
    ]) {
      expect(judge(host)).toEqual({ allowed: true });
    }
    // Next to the private ranges, outside them.
    for (const host of ['172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '11.0.0.1']) {
      expect(judge(host)).toEqual({ allowed: true });
    }
  });
});

describe('HOLDFAST_ALERT_ALLOWED_HOSTS', () => {
  const list = parseAllowList(' 127.0.0.1 , 10.20.0.0/16,fd00::/8, [::1], relay.internal., 169.254.169.254/32');

  it('allows what it names (addresses, ranges, host names) and nothing next to it', () => {
    expect(judge('127.0.0.1', list)).toEqual({ allowed: true });
    expect(judge('127.0.0.2', list)).toEqual(refusedBecause('loopback'));
    expect(judge('10.20.255.1', list)).toEqual({ allowed: true });
    expect(judge('10.21.0.1', list)).toEqual(refusedBecause('private'));
    expect(judge('fd00::5', list)).toEqual({ allowed: true });
    expect(judge('fd01::5', list)).toEqual({ allowed: true });
    expect(judge('fe80::5', list)).toEqual(refusedBecause('link-local'));
    expect(judge('::1', list)).toEqual({ allowed: true });
    expect(judge('192.168.1.1', list, 'RELAY.internal')).toEqual({ allowed: true });
    expect(judge('192.168.1.1', list, 'other.internal')).toEqual(refusedBecause('private'));
  });

  it('allows an allowed IPv4 address in its IPv6 and numeric spellings alike', () => {
    expect(judge('::ffff:127.0.0.1', list)).toEqual({ allowed: true });
    expect(judge('2130706433', list)).toEqual({ allowed: true });
    expect(judge('::ffff:169.254.169.254', list)).toEqual({ allowed: true });
    expect(judge('::ffff:169.254.169.253', list)).toEqual(refusedBecause('link-local'));
    expect(judge('::ffff:0:7f00:1', list)).toEqual({ allowed: true });
    expect(judge('::ffff:0:7f00:2', list)).toEqual(refusedBecause('(carrying 127.0.0.2) is a loopback address'));
  });

  it('refuses start-up with an entry that is neither a CIDR, an address nor a host name', () => {
    expect(
      parseEnvironment({ HOLDFAST_ALERT_ALLOWED_HOSTS: '127.0.0.1,10.0.0.0/8' }).HOLDFAST_ALERT_ALLOWED_HOSTS,
    ).toBe('127.0.0.1,10.0.0.0/8');
    for (const bad of ['10.0.0.0/33', '::1/129', 'relay internal', 'a/b', 'http://relay']) {
      expect(() => parseEnvironment({ HOLDFAST_ALERT_ALLOWED_HOSTS: bad })).toThrow(/HOLDFAST_ALERT_ALLOWED_HOSTS/);
    }
  });
});
