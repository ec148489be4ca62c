import { type NextRequest, NextResponse } from 'next/server';
import { proxyRefusal, proxySettingsFrom, resolveProxyIdentity } from './lib/auth/proxy-identity';
import { signInPathReturningTo } from './lib/auth/return-to';
import { hostRulesFrom, isAllowedHost, requestedHost, servedOverHttps } from './lib/auth/request-host';
import { judgeOrigin } from './lib/auth/request-origin';
import { contentSecurityPolicy, HSTS_HEADER, newNonce, STATIC_SECURITY_HEADERS } from './lib/auth/security-headers';
import { SESSION_COOKIE, verifySessionToken } from './lib/auth/session-token';
import { type Environment, getEnvironment } from '@holdfast/engine/env';

/**
 * The first gate, for every request:
 *  1. the Host must be one Holdfast serves (loopback names or HOLDFAST_PUBLIC_URL's host),
 *     else a DNS-rebinding page could drive a signed-in browser through its own name, and a
 *     server action (any POST to a page) must carry an Origin naming the host and port the request
 *     came to (or HOLDFAST_PUBLIC_URL's origin): no Origin, no action (lib/auth/request-origin.ts);
 *  2. every response carries the security headers, pages a fresh CSP nonce;
 *  3. a signed-in person is needed, except on the sign-in page, the health check,
 *     the agents' API and the Prometheus scrape (they take
 *     Bearer tokens and check them themselves). Pages and route handlers check again against the database
 *     (role, session version); this gate only turns away requests with no valid
 *     session early.
 */
// The sign-in page's own logo is public too, or a signed-out visitor sees it broken.
const PUBLIC_PATHS = [/^\/sign-in$/, /^\/logo\.svg$/, /^\/api\/health$/, /^\/api\/v1\//, /^\/metrics$/];

export async function proxy(request: NextRequest) {
  const env = getEnvironment();
  const rules = hostRulesFrom(env);
  // Holdfast itself serves plain http (scripts/lib/serve-dashboard.ts); Next derives nextUrl's protocol
  // from X-Forwarded-Proto whoever sent it, so only a trusted proxy's word counts.
  const https = servedOverHttps('http:', request.headers, rules);
  const nonce = newNonce();
  const policy = contentSecurityPolicy(nonce, { development: process.env.NODE_ENV === 'development' });
  const secure = (response: NextResponse) => withSecurityHeaders(response, policy, https);

  if (!isAllowedHost(requestedHost(request.headers, rules), rules)) {
    // 400, not 421: Chromium answers a 421 by retrying on a new connection and aborting the first,
    // which Next logs as an uncaught 'aborted' error.
    return secure(plainText(400, 'Bad request: this Holdfast does not answer to that host name. Use its own address.'));
  }

  const { pathname } = request.nextUrl;
  if (isServerAction(request, pathname)) {
    const origin = request.headers.get('origin');
    // Next refuses a cross-site server action too, but as a bare 500, and lets one with no Origin through.
    // Another port of an allowed host is another site: compared by host and port, not by name.
    if (!origin) {
      return secure(
        plainText(403, 'Forbidden: form posts must carry an Origin header naming this Holdfast (browsers send one).'),
      );
    }
    const verdict = judgeOrigin(origin, {
      host: requestedHost(request.headers, rules),
      https,
      publicUrl: env.HOLDFAST_PUBLIC_URL,
    });
    if (!verdict.allowed) {
      return secure(
        plainText(403, `Forbidden: form posts are accepted from this Holdfast's own pages only (${verdict.reason}).`),
      );
    }
  }

  if (!isWellEncoded(pathname)) {
    // Next's router would throw decoding it (a bare 500 with no page): say what is wrong instead.
    return secure(
      plainText(
        400,
        'Bad request: the address has malformed percent-encoding (a % must be followed by two hex digits of valid UTF-8).',
      ),
    );
  }
  if (PUBLIC_PATHS.some((pattern) => pattern.test(pathname)) || (await isSignedIn(request, env))) {
    // Next reads the nonce from the request's policy header and stamps it on its own scripts.
    const requestHeaders = new Headers(request.headers);
    requestHeaders.set('content-security-policy', policy);
    return secure(NextResponse.next({ request: { headers: requestHeaders } }));
  }

  const refusal =
    env.AUTH_MODE === 'proxy'
      ? proxyRefusal(resolveProxyIdentity(request.headers, proxySettingsFrom(env)), proxySettingsFrom(env))
      : { status: 401 as const, text: 'Sign in first' };
  if (pathname.startsWith('/api/')) {
    const code = refusal.status === 403 ? 'FORBIDDEN' : 'UNAUTHENTICATED';
    return secure(
      NextResponse.json(
        { type: 'about:blank', title: code, status: refusal.status, code, detail: refusal.text },
        { status: refusal.status, headers: { 'content-type': 'application/problem+json' } },
      ),
    );
  }
  if (env.AUTH_MODE === 'proxy') {
    return secure(plainText(refusal.status, refusal.text));
  }
  // A link opened while signed out (an alert's, a colleague's filtered view) is where sign-in returns to.
  const returnTo = request.method === 'GET' ? `${pathname}${request.nextUrl.search}` : '/';
  return secure(NextResponse.redirect(new URL(signInPathReturningTo(returnTo), request.url)));
}

function plainText(status: number, text: string): NextResponse {
  return new NextResponse(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

/**
 * A server action: a POST with Next's action header, or any POST to a page (a form posted
 * without JavaScript names its action in the body instead). The agents' API and the scrape
 * take Bearer tokens, which a browser never sends by itself, and have no Origin to check.
 */
function isServerAction(request: NextRequest, pathname: string): boolean {
  if (request.method !== 'POST') return false;
  return request.headers.has('next-action') || !(pathname.startsWith('/api/') || pathname === '/metrics');
}

function isWellEncoded(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

async function isSignedIn(request: NextRequest, env: Environment): Promise<boolean> {
  if (env.AUTH_MODE === 'proxy') return resolveProxyIdentity(request.headers, proxySettingsFrom(env)).ok;
  return Boolean(await verifySessionToken(request.cookies.get(SESSION_COOKIE)?.value, env.SESSION_SECRET ?? ''));
}

function withSecurityHeaders(response: NextResponse, policy: string, https: boolean): NextResponse {
  response.headers.set('Content-Security-Policy', policy);
  for (const [name, value] of STATIC_SECURITY_HEADERS) response.headers.set(name, value);
  if (https) response.headers.set(...HSTS_HEADER);
  return response;
}

export const config = {
  // Next's hashed build files are the same for everyone and carry the static headers from next.config.ts.
  // The busiest Bearer-token routes check the Host themselves (lib/server/host-check.ts): this gate cost the OTLP
  // traces receiver more than its own work on every export batch, and a step over HTTP (two requests) about a
  // fifth of its server time. The empty route is measured as the step endpoints are served.
  matcher: ['/((?!_next/static|_next/image|v1/traces$|api/v1/steps/begin$|api/v1/steps/finish$|api/bench/empty$).*)'],
};
