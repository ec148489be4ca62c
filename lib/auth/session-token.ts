import { jwtVerify, SignJWT } from 'jose';

export const SESSION_COOKIE = 'holdfast_session';
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

/** The claim holding the person's session version when the token was signed. */
const VERSION_CLAIM = 'sv';

export interface SessionClaims {
  email: string;
  /** Compared with people.session_version on every request: raising that ends this session. */
  sessionVersion: number;
}

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** A signed, expiring session naming the person and their session version; kept in an httpOnly cookie. */
export async function signSessionToken(session: SessionClaims | string, secret: string): Promise<string> {
  // A bare e-mail means a person who never signed out (session_version starts at 1); scripts/bench-analytics.ts signs that way.
  const claims = typeof session === 'string' ? { email: session, sessionVersion: 1 } : session;
  return new SignJWT({ [VERSION_CLAIM]: claims.sessionVersion })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.email)
    .setIssuedAt()
    .setExpirationTime(`${SESSION_LIFETIME_SECONDS}s`)
    .sign(key(secret));
}

/**
 * The session a token carries, or undefined when it is forged, expired or malformed.
 * A token without `exp` or a version is refused: it would be valid forever and
 * could not be ended by sign-out.
 */
export async function verifySessionToken(
  token: string | undefined,
  secret: string,
): Promise<SessionClaims | undefined> {
  if (!token) return undefined;
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'sub', VERSION_CLAIM],
    });
    const version = payload[VERSION_CLAIM];
    if (typeof payload.sub !== 'string' || typeof version !== 'number' || !Number.isSafeInteger(version))
      return undefined;
    return { email: payload.sub, sessionVersion: version };
  } catch {
    return undefined;
  }
}
