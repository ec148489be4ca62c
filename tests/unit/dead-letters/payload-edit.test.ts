import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { editedTaskId, MAX_LISTED_CHANGES, payloadChanges } from '@holdfast/protocol/inputs/payload-edit-input';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('payloadChanges', () => {
  it('lists changed, added and removed leaves by path, and ignores key order', () => {
    const before = { order: { id: 7, items: [{ sku: 'a' }, { sku: 'b' }] }, note: 'x', 'with space': 1 };
    const after = { note: 'x', order: { items: [{ sku: 'a' }, { sku: 'c' }, { sku: 'd' }], id: 7 }, rush: true };
    expect(payloadChanges(before, after)).toEqual({
      total: 4,
      changes: [
        { path: '$.order.items[1].sku', change: 'changed', before: 'b', after: 'c' },
        { path: '$.order.items[2]', change: 'added', after: { sku: 'd' } },
        { path: '$.rush', change: 'added', after: true },
        { path: '$["with space"]', change: 'removed', before: 1 },
      ],
    });
  });

  it('finds nothing between equal values, and the whole value when the kind changes', () => {
    expect(payloadChanges({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual({ changes: [], total: 0 });
    expect(payloadChanges({ a: 1 }, [1])).toEqual({
      total: 1,
      changes: [{ path: '$', change: 'changed', before: { a: 1 }, after: [1] }],
    });
    expect(payloadChanges({ a: 1 }, { a: '1' }).total).toBe(1);
  });

  it('lists at most a hundred changes but counts them all, and shortens long values', () => {
    const before = Object.fromEntries(Array.from({ length: 150 }, (_, index) => [`k${index}`, index]));
    const after = Object.fromEntries(Array.from({ length: 150 }, (_, index) => [`k${index}`, index + 1]));
    const { changes, total } = payloadChanges(before, after);
    expect(total).toBe(150);
    expect(changes).toHaveLength(MAX_LISTED_CHANGES);
    const long = payloadChanges({ text: 'a' }, { text: 'b'.repeat(5_000) }).changes[0]!;
    expect(long.after).toMatch(/^"b{999}… \(5002 characters\)$/);
  });
});

describe('editedTaskId', () => {
  const letter = { id: 42, editNonce: '0f3a9c1be27d4456' };
  it('derives one task per dead letter, ending with its random nonce, within 200 characters', () => {
    expect(editedTaskId('mail-1', letter, sha256)).toBe('mail-1.edited-42-0f3a9c1be27d4456');
    const long = 'x'.repeat(195);
    const derived = editedTaskId(long, letter, sha256);
    expect(derived).toHaveLength(200);
    expect(derived.endsWith('.edited-42-0f3a9c1be27d4456')).toBe(true);
    // Two long ids that share their first 170 characters still get two tasks.
    expect(editedTaskId(`${long}a`, letter, sha256)).not.toBe(editedTaskId(`${long}b`, letter, sha256));
    // Another nonce, another task: the id cannot be worked out from the dead letter's sequential id alone.
    expect(editedTaskId('mail-1', { ...letter, editNonce: '77aa' }, sha256)).not.toBe(
      editedTaskId('mail-1', letter, sha256),
    );
  });
});
