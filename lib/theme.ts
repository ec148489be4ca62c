import { z } from 'zod';

export const THEME_COOKIE = 'holdfast-theme';
export const themePreference = z.enum(['system', 'light', 'dark']);
export type ThemePreference = z.infer<typeof themePreference>;

/** Reads the stored preference; anything unexpected means "follow the system". */
export function parseThemePreference(value: string | undefined): ThemePreference {
  const parsed = themePreference.safeParse(value);
  return parsed.success ? parsed.data : 'system';
}
