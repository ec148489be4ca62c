import ipaddr from 'ipaddr.js';

/**
 * Which addresses an alert channel may reach. A channel's URL is typed by an
 * admin, but what it resolves to is decided by whoever runs its DNS: without a
 * rule, a "webhook" could post to the cloud's metadata service, a database's
 * admin port or anything else on the inside. So every address a channel would
 * connect to is judged here: loopback, link-local, private, shared (CGNAT),
 * unique-local, multicast, unspecified and reserved addresses are refused,
 * unless the operator's allow-list (HOLDFAST_ALERT_ALLOWED_HOSTS) names the
 * host or a range holding the address. An IPv6 address carrying an IPv4 one
 * (mapped, translated, compatible, NAT64, 6to4) is judged as that IPv4 address, since that
 * is where the packets go. Pure functions: no DNS, no sockets (packages/engine/src/alerts/outbound-request.ts). The address forms are read
 * and written by ipaddr.js; which ranges are refused, and what an IPv6 address carries, is this module's policy.
 */

export interface IpAddress {
  family: 4 | 6;
  /** The address as a number: 32 bits for IPv4, 128 for IPv6. */
  value: bigint;
}

interface Range {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

export interface AllowList {
  ranges: Range[];
  /** Host names, lower-case, without a trailing dot. */
  names: Set<string>;
}

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

const bits = (family: 4 | 6) => (family === 4 ? 32 : 128);

function inRange(address: IpAddress, range: Range): boolean {
  if (address.family !== range.family) return false;
  const shift = BigInt(bits(range.family) - range.prefix);
  return address.value >> shift === range.base >> shift;
}

/**
 * An IPv4 address in any spelling inet_aton takes: `127.0.0.1`, `2130706433`,
 * `0x7f.1`, `0177.0.0.1`. URLs normalise these, but a resolver's answer or an
 * allow-list entry might not, and a check that only knows dotted quads is one
 * that `http://0x7f000001/` walks past. Null when it is not such a number.
 * Read by ipaddr.js, which takes every such spelling.
 */
export function parseIPv4(text: string): IpAddress | null {
  if (!ipaddr.IPv4.isValid(text)) return null;
  const value = ipaddr.IPv4.parse(text).octets.reduce((sum, octet) => (sum << 8n) | BigInt(octet), 0n);
  return { family: 4, value };
}

/** An IPv6 address (brackets allowed; a zone such as `%eth0` is not an address we connect to). */
export function parseIPv6(text: string): IpAddress | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1');
  if (bare.includes('%') || !ipaddr.IPv6.isValid(bare)) return null;
  const value = ipaddr.IPv6.parse(bare).parts.reduce((sum, group) => (sum << 16n) | BigInt(group), 0n);
  return { family: 6, value };
}

/** An IP address written as a URL's host or an allow-list entry; null for a host name. */
export function parseIpLiteral(host: string): IpAddress | null {
  return parseIPv6(host) ?? parseIPv4(host);
}

/** The address as it is usually written (IPv6 as RFC 5952 has it: the longest run of zero groups as `::`). */
export function formatAddress(address: IpAddress): string {
  const length = address.family === 4 ? 4 : 16;
  const bytes = Array.from({ length }, (_, index) =>
    Number((address.value >> BigInt(8 * (length - 1 - index))) & 0xffn),
  );
  const parsed = ipaddr.fromByteArray(bytes);
  return parsed.kind() === 'ipv6' ? (parsed as ipaddr.IPv6).toRFC5952String() : parsed.toString();
}

const v4 = (text: string, prefix: number): Range => ({ family: 4, base: parseIPv4(text)!.value, prefix });
const v6 = (text: string, prefix: number): Range => ({ family: 6, base: parseIPv6(text)!.value, prefix });

/**
 * IPv6 ranges that carry an IPv4 address, and where in the 128 bits it sits. Two more carry one but are refused
 * whole below, whatever they carry: the local-use NAT64 prefix 64:ff9b:1::/48 (where the IPv4 address sits depends
 * on the prefix length the network chose) and Teredo 2001::/32 (the server's address, and the client's inverted).
 */
const CARRIES_IPV4: { range: Range; shift: bigint }[] = [
  { range: v6('::ffff:0:0', 96), shift: 0n }, // IPv4-mapped
  { range: v6('::ffff:0:0:0', 96), shift: 0n }, // IPv4-translated (SIIT, RFC 2765): ::ffff:0:7f00:1 is 127.0.0.1
  { range: v6('64:ff9b::', 96), shift: 0n }, // NAT64, well-known prefix
  { range: v6('2002::', 16), shift: 80n }, // 6to4
  { range: v6('::', 96), shift: 0n }, // IPv4-compatible (deprecated); :: and ::1 are judged before
];

/** The IPv4 address an IPv6 one carries, or the address itself. */
export function effectiveAddress(address: IpAddress): IpAddress {
  if (address.family === 6 && address.value > 1n) {
    for (const { range, shift } of CARRIES_IPV4) {
      if (inRange(address, range)) return { family: 4, value: (address.value >> shift) & 0xffffffffn };
    }
  }
  return address;
}

/** Addresses a notification must not reach without the operator's say-so, by what they are. */
const INTERNAL: { range: Range; what: string }[] = [
  { range: v4('0.0.0.0', 8), what: 'an unspecified ("this network") address' },
  { range: v4('10.0.0.0', 8), what: 'a private address' },
  { range: v4('100.64.0.0', 10), what: 'a shared (carrier-grade NAT) address' },
  { range: v4('127.0.0.0', 8), what: 'a loopback address' },
  { range: v4('169.254.0.0', 16), what: 'a link-local address' },
  { range: v4('172.16.0.0', 12), what: 'a private address' },
  { range: v4('192.0.0.0', 24), what: 'a reserved (IETF protocol) address' },
  { range: v4('192.0.2.0', 24), what: 'a documentation address' },
  { range: v4('192.88.99.0', 24), what: 'a reserved (6to4 relay) address' },
  { range: v4('192.168.0.0', 16), what: 'a private address' },
  { range: v4('198.18.0.0', 15), what: 'a benchmarking address' },
  { range: v4('198.51.100.0', 24), what: 'a documentation address' },
  { range: v4('203.0.113.0', 24), what: 'a documentation address' },
  { range: v4('224.0.0.0', 4), what: 'a multicast address' },
  { range: v4('240.0.0.0', 4), what: 'a reserved (or broadcast) address' },
  { range: v6('::', 128), what: 'an unspecified address' },
  { range: v6('::1', 128), what: 'a loopback address' },
  { range: v6('64:ff9b:1::', 48), what: 'a local NAT64 address' },
  { range: v6('100::', 64), what: 'a discard address' },
  { range: v6('2001::', 32), what: 'a Teredo tunnel address' },
  { range: v6('2001:db8::', 32), what: 'a documentation address' },
  { range: v6('fc00::', 7), what: 'a unique-local address' },
  { range: v6('fe80::', 10), what: 'a link-local address' },
  { range: v6('fec0::', 10), what: 'a site-local address' },
  { range: v6('ff00::', 8), what: 'a multicast address' },
];

/** What makes an address internal ("a private address"), or null for a public one. */
export function internalKind(address: IpAddress): string | null {
  const judged = effectiveAddress(address);
  return INTERNAL.find(({ range }) => inRange(judged, range))?.what ?? null;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/;

const normaliseName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/**
 * HOLDFAST_ALERT_ALLOWED_HOSTS: comma-separated CIDRs (`10.20.0.0/16`, `fd00::/8`),
 * addresses (`127.0.0.1`, `::1`) or host names (`relay.internal`). Throws an
 * Error naming the first entry that is none of these.
 */
export function parseAllowList(text: string): AllowList {
  const list: AllowList = { ranges: [], names: new Set() };
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [host = '', prefixText, ...rest] = entry.split('/');
    const address = parseIpLiteral(host);
    if (address) {
      const prefix = prefixText === undefined ? bits(address.family) : Number(prefixText);
      if (rest.length > 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > bits(address.family)) {
        throw new Error(`"${entry}" is not a CIDR: the prefix must be 0 to ${bits(address.family)}`);
      }
      list.ranges.push({ family: address.family, base: address.value, prefix });
      // An allowed IPv4 range also allows its mapped IPv6 spellings: they are judged as IPv4.
      continue;
    }
    const name = normaliseName(entry);
    if (prefixText !== undefined || !HOST_NAME.test(name)) {
      throw new Error(`"${entry}" is neither a CIDR, an IP address nor a host name`);
    }
    list.names.add(name);
  }
  return list;
}

/** True when the allow-list names this URL host (a name, or an address literal inside an allowed range). */
export function allowsHostName(list: AllowList, hostname: string): boolean {
  return list.names.has(normaliseName(hostname.replace(/^\[(.*)\]$/, '$1')));
}

/**
 * May a channel whose URL names `hostname` connect to `address`? Yes for a
 * public address, for a host the list names, or for an address inside a
 * range the list holds (judged by the IPv4 address an IPv6 one carries).
 */
export function judgeAddress(list: AllowList, hostname: string, address: IpAddress): AddressVerdict {
  if (allowsHostName(list, hostname)) return { allowed: true };
  const what = internalKind(address);
  if (what === null) return { allowed: true };
  const judged = effectiveAddress(address);
  if (list.ranges.some((range) => inRange(judged, range) || inRange(address, range))) return { allowed: true };
  const shown = formatAddress(address);
  const carried = judged === address ? '' : ` (carrying ${formatAddress(judged)})`;
  return { allowed: false, reason: `${shown}${carried} is ${what}` };
}
