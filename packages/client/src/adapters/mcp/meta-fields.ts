/**
 * The gateway's fields in a request's or result's `_meta`. MCP leaves `_meta`
 * to implementations under a prefix of their own; ours is `io.holdfast/`. A
 * client names the call's operation with them; the gateway strips them before
 * the call goes on, so the upstream server never sees them.
 */
export const META_PREFIX = 'io.holdfast/';

/** The call's own idempotency key: the same key is the same operation, whatever else the request says. */
export const META_KEY = `${META_PREFIX}key`;
/** The task (one unit of the agent's work) the call belongs to: identical calls in one task are one operation. */
export const META_TASK = `${META_PREFIX}task`;
/** On a "try again" answer: how long to wait, in milliseconds. */
export const META_RETRY_AFTER_MS = `${META_PREFIX}retryAfterMs`;
/**
 * On a result answered from Holdfast's store rather than run (a repeat of an operation that already ran):
 * `{ firstRunAt }`, when it first ran (ISO; null for a result stored before the gateway kept it). A first run has
 * no such field, so a caller can tell a repeat it meant from a replay.
 */
export const META_REPLAYED = `${META_PREFIX}replayed`;
/** Kept with a stored result: when the tool answered it. Never sent to a caller as it is (see META_REPLAYED). */
export const META_FIRST_RUN_AT = `${META_PREFIX}firstRunAt`;
/** On an upstream tool's error result: the error class the server itself gives its failure (optional). */
export const META_ERROR_CLASS = `${META_PREFIX}errorClass`;

/** Room is left in Holdfast's 200-character task id for the gateway's prefix and the arguments' hash. */
export const MAX_META_VALUE_LENGTH = 150;
/**
 * Letters, digits and a few separators: a value becomes part of a task id and a
 * key that people read on the console, so no spaces, quotes or control characters.
 */
const META_VALUE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:/@=+-]*$/;
const META_VALUE_RULE = 'may contain only letters, digits and _ . : / @ = + - (starting with a letter or digit)';

export interface CallMeta {
  key?: string;
  task?: string;
}

export type ParsedCallMeta = { ok: true; meta: CallMeta } | { ok: false; problem: string };

/**
 * Whether a `_meta` name is under the gateway's prefix, in any case or width:
 * `IO.HOLDFAST/key` is the gateway's too, so it is refused as misspelt (never
 * passed on as someone else's field while the call runs as another operation).
 */
export function isOurMetaName(name: string): boolean {
  return name.normalize('NFKC').toLowerCase().startsWith(META_PREFIX);
}

/** Splits a request's `_meta` into the gateway's fields and the rest, which goes on to the upstream server. */
export function splitMeta(meta: Record<string, unknown> | undefined): {
  ours: Record<string, unknown>;
  forwarded: Record<string, unknown> | undefined;
} {
  const ours: Record<string, unknown> = {};
  const forwarded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(meta ?? {})) {
    if (isOurMetaName(name)) ours[name] = value;
    else forwarded[name] = value;
  }
  return { ours, forwarded: Object.keys(forwarded).length > 0 ? forwarded : undefined };
}

/**
 * Reads the gateway's fields, refusing anything it cannot be sure of: a field
 * of another type, too long, with other characters, or a name under the prefix
 * it does not know (a misspelt `io.holdfast/taks`, or `IO.HOLDFAST/key` in
 * another case, would otherwise silently make the call a different operation).
 */
export function parseCallMeta(ours: Record<string, unknown>): ParsedCallMeta {
  const meta: CallMeta = {};
  for (const [name, value] of Object.entries(ours)) {
    if (name !== META_KEY && name !== META_TASK) {
      return {
        ok: false,
        problem: `_meta "${name}" is not a field of the gateway (it knows ${META_KEY} and ${META_TASK}, spelt in lower case)`,
      };
    }
    const problem = valueProblem(value);
    if (problem) return { ok: false, problem: `_meta "${name}" ${problem}` };
    if (name === META_TASK && (value as string).startsWith('raw:')) {
      return { ok: false, problem: `_meta "${name}" must not start with raw: (the prefix of Holdfast's raw keys)` };
    }
    if (name === META_KEY) meta.key = value as string;
    else meta.task = value as string;
  }
  return { ok: true, meta };
}

function valueProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `must be a string, not ${value === null ? 'null' : typeof value}`;
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_META_VALUE_LENGTH) {
    return `must be at most ${MAX_META_VALUE_LENGTH} characters (it has ${value.length})`;
  }
  if (!META_VALUE_PATTERN.test(value)) return META_VALUE_RULE;
  return undefined;
}
