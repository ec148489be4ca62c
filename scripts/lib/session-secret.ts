import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Without SESSION_SECRET, sessions are signed with a secret kept in
 * .data/session-secret (readable by its owner only), so that sign-ins survive
 * a restart. Set SESSION_SECRET to share one secret across instances.
 */
export async function loadOrCreateSessionSecret(folder: string, log: (line: string) => void): Promise<string> {
  const file = path.join(folder, 'session-secret');
  const existing = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (existing && existing.trim().length >= 32) return existing.trim();
  await fs.mkdir(folder, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  await fs.writeFile(file, secret, { mode: 0o600 });
  log(`Created a session secret in ${file}`);
  return secret;
}
