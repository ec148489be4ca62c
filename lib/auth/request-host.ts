import type { Environment } from '@holdfast/engine/env';

/**
 * Which Host values Holdfast answers. A browser tricked by DNS rebinding sends
 * the attacker's name as Host (and a matching Origin, so Next's own server
 * action check passes): refusing names we do not serve is the defence.
 */
export interface HostRules {
  /** The hostname of HOLDFAST_PUBLIC_URL, lowercased; any port. */
  publicHostname?: string;
  /** Read X-Forwarded-Host and X-Forwarded-Proto (set by a reverse proxy we trust). */
  trustForwarded: boolean;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export function hostRulesFrom(
  env: Pick<Environment, 'HOLDFAST_PUBLIC_URL' | 'HOLDFAST_TRUST_FORWARDED_HEADERS'>,
): HostRules {
  return {
    publicHostname: env.HOLDFAST_PUBLIC_URL ? new URL(env.HOLDFAST_PUBLIC_URL).hostname.toLowerCase() : undefined,
    trustForwarded: env.HOLDFAST_TRUST_FORWARDED_HEADERS === '1',
  };
}

type HeaderSource = { get(name: string): string | null };

/** The first value of a possibly comma-joined header (proxies append theirs). */
function firstValue(value: string | null): string | undefined {
  const first = value?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/** The host the client asked for: X-Forwarded-Host only when trusted, else Host. */
export function requestedHost(headers: HeaderSource, rules: HostRules): string | undefined {
  return (
    (rules.trustForwarded ? firstValue(headers.get('x-forwarded-host')) : undefined) ?? firstValue(headers.get('host'))
  );
}

/** `name[:port]` to its lowercased name; `[v6]:port` keeps its brackets. Undefined when malformed. */
export function hostnameOf(host: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  return match?.[1]?.toLowerCase();
}

export function isAllowedHost(host: string | undefined, rules: HostRules): boolean {
  const name = host === undefined ? undefined : hostnameOf(host);
  if (!name) return false;
  return LOOPBACK_NAMES.has(name) || (rules.publicHostname !== undefined && name === rules.publicHostname);
}

/** Whether the client reached us over https: the request's own protocol, or a trusted proxy's word. */
export function servedOverHttps(requestProtocol: string, headers: HeaderSource, rules: HostRules): boolean {
  const forwarded = rules.trustForwarded ? firstValue(headers.get('x-forwarded-proto')) : undefined;
  return (forwarded ?? requestProtocol.replace(/:$/, '')).toLowerCase() === 'https';
}
