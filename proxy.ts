import { type NextRequest, NextResponse } from 'next/server';
import { proxySettingsFrom, resolveProxyIdentity } from './lib/auth/proxy-identity';
import { SESSION_COOKIE, verifySessionToken } from './lib/auth/session-token';
import { getEnvironment } from './lib/env';

/**
 * The first gate: every page and route needs a signed-in person, except the
 * sign-in page, the health check and the agents' API (which takes Bearer
 * tokens and checks them itself). Pages and route handlers check again and
 * load the person's role from the database; this gate only turns away
 * requests with no valid session early.
 */
const PUBLIC_PATHS = [/^\/sign-in$/, /^\/api\/health$/, /^\/api\/v1\//];

export async function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (PUBLIC_PATHS.some((pattern) => pattern.test(pathname))) return NextResponse.next();

  const env = getEnvironment();
  const signedIn =
    env.AUTH_MODE === 'proxy'
      ? resolveProxyIdentity(request.headers, proxySettingsFrom(env)).ok
      : Boolean(await verifySessionToken(request.cookies.get(SESSION_COOKIE)?.value, env.SESSION_SECRET ?? ''));
  if (signedIn) return NextResponse.next();

  if (pathname.startsWith('/api/')) {
    return NextResponse.json(
      { type: 'about:blank', title: 'UNAUTHENTICATED', status: 401, code: 'UNAUTHENTICATED', detail: 'Sign in first' },
      { status: 401, headers: { 'content-type': 'application/problem+json' } },
    );
  }
  if (env.AUTH_MODE === 'proxy') return new NextResponse('Holdfast is reached through the SSO proxy only.', { status: 401 });
  return NextResponse.redirect(new URL('/sign-in', request.url));
}

export const config = {
  // Static assets and Next's own files need no session.
  matcher: ['/((?!_next/static|_next/image|icon.svg|logo.svg|favicon.ico).*)'],
};
