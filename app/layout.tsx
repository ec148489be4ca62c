import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import type { ReactNode } from 'react';
import { parseThemePreference, THEME_COOKIE } from '@/lib/theme';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Holdfast', template: '%s · Holdfast' },
  description: 'Retries, duplicates, holds and dead letters of your AI agent fleet.',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The theme is chosen on the server from a cookie, so the first paint is already right.
  const theme = parseThemePreference((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" data-theme={theme}>
      <body className="min-h-screen">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
