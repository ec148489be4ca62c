import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/**
 * The embedded database's two login roles get passwords generated once and kept
 * beside the cluster, readable by their owner only (like .data/session-secret), so
 * a restart signs in with the same ones.
 */

export interface RolePasswords {
  owner: string;
  app: string;
}

const storedPasswords = z.object({ owner: z.string().min(32), app: z.string().min(32) });

export function generateRolePasswords(): RolePasswords {
  return { owner: randomBytes(32).toString('base64url'), app: randomBytes(32).toString('base64url') };
}

export async function loadOrCreateRolePasswords(file: string, log: (line: string) => void): Promise<RolePasswords> {
  const existing = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (existing !== undefined) {
    const parsed = storedPasswords.safeParse(parseJson(existing));
    if (parsed.success) return parsed.data;
    log(`${file} holds no usable passwords: making new ones`);
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  const passwords = generateRolePasswords();
  await fs.writeFile(file, JSON.stringify(passwords), { mode: 0o600 });
  await fs.chmod(file, 0o600); // writeFile's mode applies only to a file it creates
  log(`Created passwords for the database roles in ${file}`);
  return passwords;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
