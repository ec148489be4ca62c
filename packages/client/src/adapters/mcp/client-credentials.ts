import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { agentName } from '@holdfast/protocol/names';

/**
 * Who may call a gateway that listens on HTTP, read from its `--clients` file:
 *
 *   { "clients": [
 *       { "name": "research-desktop", "agent": "research", "secretEnv": "MCP_SECRET_RESEARCH" },
 *       { "name": "payments-worker", "agent": "payments", "secretSha256": "<64 hex digits>" } ] }
 *
 * A client proves itself with `Authorization: Bearer <its secret>`, and its
 * calls are recorded for its `agent`, whatever the client calls itself in MCP's
 * `clientInfo` (any process on the machine can call itself anything). The file
 * never holds a secret: only the name of the environment variable that does, or
 * the secret's SHA-256 (a random secret of 32 characters or more is beyond
 * guessing from its hash, so no slow hash is needed).
 */
export interface ClientCredential {
  /** The client's name in the gateway's messages and logs. */
  name: string;
  /** The agent every call of this client is recorded for. */
  agent: string;
  /** SHA-256 of the secret. */
  secretSha256: Buffer;
}

/** A secret shorter than this is refused: it would be open to guessing. */
export const MIN_SECRET_LENGTH = 32;

const clientName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/,
    'must be 1 to 100 letters, digits and _ . : - (starting with one of the first two)',
  );

const clientEntry = z
  .object({
    name: clientName,
    agent: agentName,
    secretEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable')
      .optional(),
    secretSha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (the SHA-256 of the secret)')
      .optional(),
  })
  .strict()
  .refine((entry) => (entry.secretEnv === undefined) !== (entry.secretSha256 === undefined), {
    message: 'give exactly one of secretEnv and secretSha256',
  });

const clientsFile = z.object({ clients: z.array(clientEntry).min(1, 'must name at least one client') }).strict();

/**
 * Reads the clients file's text. Every problem is an Error naming the field,
 * so the gateway refuses to start rather than serve with a credential it
 * misread.
 */
export function parseClientCredentials(text: string, env: Record<string, string | undefined>): ClientCredential[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('the clients file is not JSON');
  }
  const entries = (json as { clients?: unknown } | null)?.clients;
  if (
    Array.isArray(entries) &&
    entries.some((entry) => typeof entry === 'object' && entry !== null && 'secret' in entry)
  ) {
    throw new Error(
      'the clients file holds a "secret": give secretEnv (a variable that holds it) or secretSha256 instead',
    );
  }
  const parsed = clientsFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`the clients file's ${issue.path.join('.') || 'top level'} ${issue.message}`);
  }
  const credentials = parsed.data.clients.map((entry): ClientCredential => {
    if (entry.secretSha256 !== undefined) {
      return { name: entry.name, agent: entry.agent, secretSha256: Buffer.from(entry.secretSha256, 'hex') };
    }
    const secret = env[entry.secretEnv!];
    if (secret === undefined || secret === '') {
      throw new Error(`client ${entry.name}: the environment variable ${entry.secretEnv} is not set`);
    }
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new Error(`client ${entry.name}: ${entry.secretEnv} must hold at least ${MIN_SECRET_LENGTH} characters`);
    }
    return { name: entry.name, agent: entry.agent, secretSha256: sha256(secret) };
  });
  for (const [index, credential] of credentials.entries()) {
    const earlier = credentials.slice(0, index);
    if (earlier.some((other) => other.name === credential.name)) {
      throw new Error(`the clients file names client ${credential.name} twice`);
    }
    const twin = earlier.find((other) => other.secretSha256.equals(credential.secretSha256));
    if (twin) throw new Error(`clients ${twin.name} and ${credential.name} have the same secret`);
  }
  return credentials;
}

/**
 * The client whose secret an Authorization header carries, or undefined. Every
 * client's hash is compared, each in constant time, so the time taken says
 * nothing of which client, or how much of a secret, matched.
 */
export function authenticateClient(
  credentials: readonly ClientCredential[],
  authorization: string | undefined,
): ClientCredential | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const presented = sha256(match[1]!);
  let found: ClientCredential | undefined;
  for (const credential of credentials) {
    if (timingSafeEqual(presented, credential.secretSha256) && !found) found = credential;
  }
  return found;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
