import { jwtVerify, SignJWT } from 'jose';

export const SESSION_COOKIE = 'holdfast_session';
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** A signed, expiring session naming the person; kept in an httpOnly cookie. */
export async function signSessionToken(email: string, secret: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(email)
    .setIssuedAt()
    .setExpirationTime(`${SESSION_LIFETIME_SECONDS}s`)
    .sign(key(secret));
}

/** The person a session token names, or undefined when it is forged, expired or malformed. */
export async function verifySessionToken(token: string | undefined, secret: string): Promise<string | undefined> {
  if (!token) return undefined;
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'] });
    return typeof payload.sub === 'string' ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}
