import { InvalidInputError } from '@holdfast/protocol/errors';

/**
 * Raw keys (claimed by name through claimKey or /api/v1/keys/*) are stored
 * under this prefix, and no task id may start with it, so a raw key can never
 * name a step key (`<task>/<step>`): no raw claim can create, complete or
 * block a step. A caller may name a raw key either way: `x` and `raw:x` are
 * one key (its stored name, which the console shows).
 */
export const RAW_KEY_PREFIX = 'raw:';

export function storedRawKey(name: string): string {
  return name.startsWith(RAW_KEY_PREFIX) ? name : `${RAW_KEY_PREFIX}${name}`;
}

/** Refuses a task id that would make its step keys look like raw keys. */
export function refuseRawPrefixedTaskId(taskId: string): void {
  if (!taskId.startsWith(RAW_KEY_PREFIX)) return;
  const message = `must not start with "${RAW_KEY_PREFIX}": that prefix is reserved for raw keys`;
  throw new InvalidInputError(`taskId: ${message}`, { taskId: [message] });
}
