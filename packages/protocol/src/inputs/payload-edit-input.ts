import { z } from 'zod';
import { MAX_PAYLOAD_BYTES } from '@holdfast/protocol/inputs/dead-letter-task-input';

/**
 * What an edited redrive is given, and how the edit is described: the same
 * list of changes is shown in the console before confirming and kept in the
 * audit record. Plain functions, so the browser computes the preview itself.
 */

/** An edited payload: any JSON value, as large as a dead letter's own payload may be. */
export const editedPayload = z
  .unknown()
  .refine((value) => value !== undefined, 'is required')
  .refine(
    (value) => (JSON.stringify(value) ?? '').length <= MAX_PAYLOAD_BYTES,
    `must serialise to at most ${MAX_PAYLOAD_BYTES / 1024} KiB`,
  );

export interface PayloadChange {
  /** Where, from the payload's root: `$`, `$.order.items[2]`. */
  path: string;
  change: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

/** Enough to read an edit in the audit log; a payload rewritten from top to bottom says so in its count. */
export const MAX_LISTED_CHANGES = 100;
/** A value longer than this (as JSON) is kept as its first characters and its length. */
const MAX_VALUE_CHARACTERS = 1_000;

/**
 * The leaves that differ between two JSON values: objects compared key by key
 * (key order does not matter, as in PostgreSQL's jsonb), arrays index by index,
 * anything else by value. Lists at most `MAX_LISTED_CHANGES`; `total` counts all.
 */
export function payloadChanges(before: unknown, after: unknown): { changes: PayloadChange[]; total: number } {
  const changes: PayloadChange[] = [];
  let total = 0;
  const note = (change: PayloadChange) => {
    total += 1;
    if (changes.length < MAX_LISTED_CHANGES) changes.push(change);
  };
  const walk = (path: string, left: unknown, right: unknown) => {
    if (isObject(left) && isObject(right)) {
      const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
      for (const key of keys) {
        const inner = `${path}${/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`;
        if (!(key in right)) note({ path: inner, change: 'removed', before: bounded(left[key]) });
        else if (!(key in left)) note({ path: inner, change: 'added', after: bounded(right[key]) });
        else walk(inner, left[key], right[key]);
      }
      return;
    }
    if (Array.isArray(left) && Array.isArray(right)) {
      for (let index = 0; index < Math.max(left.length, right.length); index++) {
        const inner = `${path}[${index}]`;
        if (index >= right.length) note({ path: inner, change: 'removed', before: bounded(left[index]) });
        else if (index >= left.length) note({ path: inner, change: 'added', after: bounded(right[index]) });
        else walk(inner, left[index], right[index]);
      }
      return;
    }
    if (!sameLeaf(left, right)) note({ path, change: 'changed', before: bounded(left), after: bounded(right) });
  };
  walk('$', before, after);
  return { changes, total };
}

/**
 * The task an edited redrive runs as: derived from the dead letter, so the same
 * edit redriven twice names one task, and within the 200 characters a task id
 * may have (a long id keeps its start and a hash of the whole). It ends with the
 * dead letter's random nonce: dead letters' ids are sequential, and an id anyone
 * could work out could be begun first by another agent, making the redrive fail.
 */
export function editedTaskId(
  taskId: string,
  deadLetter: { id: number; editNonce: string },
  hash: (text: string) => string,
): string {
  const suffix = `.edited-${deadLetter.id}-${deadLetter.editNonce}`;
  if (taskId.length + suffix.length <= 200) return `${taskId}${suffix}`;
  const fingerprint = `~${hash(taskId).slice(0, 12)}`;
  return `${taskId.slice(0, 200 - suffix.length - fingerprint.length)}${fingerprint}${suffix}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameLeaf(left: unknown, right: unknown): boolean {
  if (isObject(left) || isObject(right) || Array.isArray(left) || Array.isArray(right)) return false;
  return left === right;
}

function bounded(value: unknown): unknown {
  const text = JSON.stringify(value) ?? 'null';
  if (text.length <= MAX_VALUE_CHARACTERS) return value;
  return `${text.slice(0, MAX_VALUE_CHARACTERS)}… (${text.length} characters)`;
}
