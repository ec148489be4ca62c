/**
 * The headers every response carries. The policy allows scripts only with this
 * response's nonce ('strict-dynamic' lets Next's nonced loader pull in its own
 * chunks); Next reads the nonce from the request's Content-Security-Policy
 * header and stamps it on its inline scripts, which is why pages render
 * dynamically. Styles keep 'unsafe-inline': React style attributes (charts,
 * widths) are inline styles, and a nonce cannot cover attributes.
 */
export function contentSecurityPolicy(nonce: string, options: { development: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** For JSON answers that skip proxy.ts (the step endpoints, the OTLP receiver): nothing may load or frame them. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** Headers that need nothing from the request. */
export const STATIC_SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'strict-origin-when-cross-origin'],
  // For browsers that predate frame-ancestors.
  ['X-Frame-Options', 'DENY'],
];

/** HSTS only over https: sent over http it would be ignored, and behind a local http setup it would be wrong. */
export const HSTS_HEADER = ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'] as const;
