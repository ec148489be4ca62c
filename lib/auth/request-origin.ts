/**
 * Whether a server action's Origin is this Holdfast as the browser reached it. A host name alone is not enough:
 * `http://localhost:1` names an allowed host, but a page served on another port of the same machine is another
 * site (another origin), and a check by name lets its form posts through to Next, whose own check then fails them
 * as a bare 500. So the Origin's host and port must be the request's own host and port (a port left out counted as
 * its scheme's default: the Origin's scheme, and the request's for its Host), or the Origin must be
 * HOLDFAST_PUBLIC_URL's, which is what a browser sends behind a reverse proxy that rewrites the Host. The scheme
 * itself is not compared: behind a TLS proxy that is not trusted, an https page's post reaches us as plain http.
 */

export interface OwnAddress {
  /** The Host the request names (or a trusted proxy's X-Forwarded-Host), already judged one Holdfast serves. */
  host: string | undefined;
  /** Whether the client reached us over https, so which port a Host without one means. */
  https: boolean;
  /** HOLDFAST_PUBLIC_URL, if set. */
  publicUrl?: string;
}

export type OriginVerdict = { allowed: true } | { allowed: false; reason: string };

const defaultPort = (https: boolean) => (https ? '443' : '80');

/** `name[:port]` as `name:port`, lower-case, the port given or the scheme's default; undefined when malformed. */
function hostAndPort(host: string, https: boolean): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(host.trim());
  if (!match) return undefined;
  return `${match[1]!.toLowerCase()}:${match[2] ?? defaultPort(https)}`;
}

/** An origin's `name:port` (the port given or its scheme's default); undefined for `null` or a non-web scheme. */
function originHostAndPort(origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return `${url.hostname}:${url.port || defaultPort(url.protocol === 'https:')}`;
}

export function judgeOrigin(origin: string, own: OwnAddress): OriginVerdict {
  const theirs = originHostAndPort(origin);
  const ours = own.host === undefined ? undefined : hostAndPort(own.host, own.https);
  if (theirs !== undefined && theirs === ours) return { allowed: true };
  if (theirs !== undefined && own.publicUrl !== undefined) {
    const publicOrigin = new URL(own.publicUrl).origin;
    if (new URL(origin).origin === publicOrigin) return { allowed: true };
  }
  const shown = theirs === undefined ? `Origin ${JSON.stringify(origin.slice(0, 100))}` : `Origin ${theirs}`;
  const expected = ours === undefined ? 'this Holdfast' : ours;
  return { allowed: false, reason: `${shown} is not ${expected}` };
}
