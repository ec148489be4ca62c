'use client';

import { useState } from 'react';
import { THEME_COOKIE, type ThemePreference } from '@/lib/theme';

const next: Record<ThemePreference, ThemePreference> = { system: 'light', light: 'dark', dark: 'system' };
const label: Record<ThemePreference, string> = { system: 'System theme', light: 'Light theme', dark: 'Dark theme' };

/** Cycles system -> light -> dark; the choice is kept in a cookie for a year. */
export function ThemeToggle({ initialTheme }: { initialTheme: ThemePreference }) {
  const [theme, setTheme] = useState<ThemePreference>(initialTheme);

  function cycle() {
    const chosen = next[theme];
    document.documentElement.dataset.theme = chosen;
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Safari and Firefox.
    document.cookie = `${THEME_COOKIE}=${chosen}; path=/; max-age=31536000; samesite=lax`;
    setTheme(chosen);
  }

  return (
    <button
      type="button"
      onClick={cycle}
      data-testid="theme-toggle"
      className="w-full rounded-md px-3 py-1.5 text-left text-[13px] text-muted hover:bg-surface-raised hover:text-ink"
      title="Switch between system, light and dark themes"
    >
      {label[theme]}
    </button>
  );
}
