import { lookup as systemLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { getEnvironment } from '../env';
import { allowsHostName, judgeAddress, parseAllowList, parseIpLiteral, type AllowList } from '../net/outbound-address';

/**
 * The one way Holdfast posts outside itself: the destination is resolved and
 * every address it resolves to is judged (packages/engine/src/net/outbound-address.ts) before any
 * byte is sent, and the connection is pinned to the address that was judged,
 * so a DNS answer that changes between the check and the connect (rebinding)
 * cannot move it inside. Redirects are never followed: node:http does not.
 */

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (the system resolver's, or a test's stub). */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundOptions {
  /** HOLDFAST_ALERT_ALLOWED_HOSTS's syntax; the environment's when absent. */
  allowedHosts?: string;
  /** The system resolver when absent. */
  resolve?: ResolveHost;
}

/** The destination is inside and no allow-list entry permits it: nothing was sent. */
export class OutboundRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';
}

const systemResolve: ResolveHost = async (hostname) =>
  (await systemLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

const parsedLists = new Map<string, AllowList>();

function allowListOf(text: string): AllowList {
  let list = parsedLists.get(text);
  if (!list) {
    list = parseAllowList(text);
    parsedLists.set(text, list);
  }
  return list;
}

function settingsOf(options: OutboundOptions): { list: AllowList; resolve: ResolveHost } {
  return {
    list: allowListOf(options.allowedHosts ?? getEnvironment().HOLDFAST_ALERT_ALLOWED_HOSTS),
    resolve: options.resolve ?? systemResolve,
  };
}

/**
 * The address a request to `url` may connect to: its literal address, or the
 * first its host resolves to, once every one of them is allowed. Throws
 * OutboundRefusedError when one is not (a name answering a public and a
 * private address is refused: it is misconfigured or hostile), and the
 * resolver's error (ENOTFOUND...) when the name does not resolve.
 */
export async function vetDestination(
  url: URL,
  options: OutboundOptions = {},
  signal?: AbortSignal,
): Promise<ResolvedAddress> {
  const { list, resolve } = settingsOf(options);
  const literal = parseIpLiteral(url.hostname);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const candidates: ResolvedAddress[] = literal
    ? [{ address: host, family: literal.family }]
    : await abortable(resolve(host), signal);
  if (candidates.length === 0) throw new OutboundRefusedError(`${host} resolves to no address`);
  for (const candidate of candidates) {
    const address = parseIpLiteral(candidate.address);
    if (!address) throw new OutboundRefusedError(`${host} resolves to "${candidate.address}", which is not an address`);
    const verdict = judgeAddress(list, host, address);
    if (!verdict.allowed) {
      const resolved = literal ? '' : `${host} resolves to `;
      throw new OutboundRefusedError(
        `${resolved}${verdict.reason}; alert channels reach only public addresses unless HOLDFAST_ALERT_ALLOWED_HOSTS allows it`,
      );
    }
  }
  return candidates[0]!;
}

/**
 * The check when a channel is saved: vetDestination's, except that a host the
 * allow-list names is not resolved (any address it has is allowed, and it may
 * resolve only where deliveries are sent from).
 */
export async function vetChannelUrl(url: URL, options: OutboundOptions = {}, signal?: AbortSignal): Promise<void> {
  if (!parseIpLiteral(url.hostname) && allowsHostName(settingsOf(options).list, url.hostname)) return;
  await vetDestination(url, options, signal);
}

/** `work`, or the signal's reason once it aborts (a resolver cannot be stopped, only no longer waited for). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const fail = () => reject(signal.reason);
    signal.addEventListener('abort', fail, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', fail));
  });
}

/** A lookup that answers the judged address whatever it is asked, in both of the shapes net.connect asks for. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

export interface OutboundAnswer {
  statusCode: number;
  retryAfter: string | null;
}

/**
 * POSTs `body` to `url` after vetting it, over a connection of its own pinned
 * to the vetted address (TLS still checks the certificate against the URL's
 * host name). The answer's body is not read. `signal` bounds the whole try,
 * resolution included.
 */
export async function postVetted(
  url: string,
  request: { headers: Record<string, string>; body: string; signal: AbortSignal },
  options: OutboundOptions = {},
): Promise<OutboundAnswer> {
  const target = new URL(url);
  const address = await vetDestination(target, options, request.signal);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<OutboundAnswer>((resolve, reject) => {
    const outgoing = client.request(
      target,
      {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        lookup: pinnedLookup(address),
        // A connection of its own: a pooled socket is not reused for another channel's check.
        agent: false,
        signal: request.signal,
      },
      (response) => {
        const retryAfter = response.headers['retry-after'];
        resolve({
          statusCode: response.statusCode ?? 0,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
        });
        response.destroy();
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}
