/**
 * Reading PostgreSQL connection URLs the way libpq and postgres.js do, where
 * the WHATWG URL parser cannot: a multi-host URL (`postgres://user@db1:5432,db2:5433/holdfast`,
 * as a high-availability setup names its nodes) is not a valid URL to `new URL` when the
 * hosts carry ports. No driver import here: packages/engine/src/env.ts validates with it.
 */

/** The hosts of a URL, as `host:port` or `host` strings, in the order given. */
export function hostsOf(url: string): string[] {
  const authority = /^[a-z]+:\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url)?.[1] ?? '';
  return authority === '' ? [] : authority.split(',');
}

/** The URL with only its first host, which `new URL` can read; the URL itself when it names one host. */
export function withFirstHost(url: string): string {
  const hosts = hostsOf(url);
  if (hosts.length < 2) return url;
  return url.replace(hosts.join(','), hosts[0]!);
}

/** One query parameter of the URL (`?target_session_attrs=primary&prepare=false`), or null. */
export function urlParameter(url: string, name: string): string | null {
  const query = url.split('#')[0]!.split('?')[1];
  return query === undefined ? null : new URLSearchParams(query).get(name);
}
