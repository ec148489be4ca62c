/**
 * Where to go after signing in: the page a signed-out person opened (a link
 * from an alert, a colleague's filtered view), carried through the sign-in page
 * as `?next=`. Only a path on this site is followed, never another origin: an
 * open redirect would let a crafted link send a fresh session's person anywhere.
 */
export const RETURN_TO_PARAM = 'next';

const MAX_RETURN_TO_LENGTH = 2_000;

/** The path to return to, or '/' for anything that is not a plain same-site path. */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_RETURN_TO_LENGTH) return '/';
  // One leading slash and no second one or backslash after it: `//host` and `/\host` are other origins to a browser.
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // No control characters (a tab or newline inside `/\t/host` is dropped by URL parsing).
  if ([...value].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f)) return '/';
  const resolved = new URL(value, 'http://holdfast.invalid');
  if (resolved.origin !== 'http://holdfast.invalid') return '/';
  // The sign-in page itself is no destination: it would loop.
  if (resolved.pathname === '/sign-in') return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** The sign-in page's address that returns to `pathWithSearch` afterwards. */
export function signInPathReturningTo(pathWithSearch: string): string {
  const target = safeReturnTo(pathWithSearch);
  return target === '/' ? '/sign-in' : `/sign-in?${RETURN_TO_PARAM}=${encodeURIComponent(target)}`;
}
