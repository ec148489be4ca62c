import { z } from 'zod';

/**
 * What Holdfast takes as a person's e-mail address, everywhere (demo sign-in,
 * the SSO proxy's header, people management), so that what one door lets in
 * another never refuses with a 500. Lowercased: it is the person's id.
 */
export const personEmail = z.string().trim().toLowerCase().email('must be an email address').max(200);

/** The address in canonical form, or undefined when it is not one. */
export function parsePersonEmail(value: unknown): string | undefined {
  const parsed = personEmail.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
