import { z } from 'zod';
import { alertChannelKinds } from '@holdfast/protocol/enums';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A channel's URL: https, or plain http only to this machine (a receiver a test
 * or a local relay runs). No credentials in the URL: a webhook is
 * authenticated by its signature, a Slack webhook by its secret path.
 */
export const channelUrl = z
  .string()
  .trim()
  .max(2_000, 'must be at most 2,000 characters')
  // abort: the refinements below parse the URL, and would throw on text that is not one.
  .pipe(z.url({ message: 'must be a URL', abort: true }))
  .refine((value) => {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  }, 'must be https (plain http only to 127.0.0.1 or localhost)')
  .refine((value) => {
    const url = new URL(value);
    return url.username === '' && url.password === '';
  }, 'must not carry a user name or password');

/** The part of a channel URL the console and the logs may show: never its path or query, which may be the secret. */
export function urlHint(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}/…`;
}

export const createAlertChannelInput = z.strictObject({
  name: z.string().trim().min(1, 'is required').max(80, 'must be at most 80 characters'),
  kind: z.enum(alertChannelKinds),
  url: channelUrl,
  /** Route only this team's alerts here (holds its team owns); empty for every alert. */
  team: z
    .string()
    .trim()
    .max(60)
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be a team name: lower-case letters, digits, - and _')
    .optional(),
});

export type CreateAlertChannelInput = z.input<typeof createAlertChannelInput>;
