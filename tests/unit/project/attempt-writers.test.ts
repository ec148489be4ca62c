import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The attempt log has one writer (packages/engine/src/core/attempts/attempt-writes.ts): every statement that
 * inserts or updates a row of `attempts` or `attempt_identities` is built there, whichever path the attempt came
 * by (a begin and its finish, a report, a stored span). Deletes are retention's and the span renumbering's.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const WRITER = 'packages/engine/src/core/attempts/attempt-writes.ts';
const WRITES_ATTEMPTS = /\b(insert\s+into|update)\s+attempt(s|_identities)\b/gi;

function sources(folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** Each `file: statement head` that writes attempts, in the server's and the library's code. */
function attemptWrites(): string[] {
  return ['packages/engine/src', 'lib', 'app']
    .flatMap(sources)
    .flatMap((file) =>
      [...readFileSync(path.join(root, file), 'utf8').matchAll(WRITES_ATTEMPTS)].map(
        (match) => `${file}: ${match[0].replace(/\s+/g, ' ').toLowerCase()}`,
      ),
    );
}

describe('the attempt log', () => {
  it('is written by one module', () => {
    const writes = attemptWrites();
    expect(writes.filter((write) => !write.startsWith(`${WRITER}:`))).toEqual([]);
    // The writer holds every path's statements: the begin's, the end of a finish, a report's, the spans'.
    expect(writes.filter((write) => write.startsWith(`${WRITER}:`)).length).toBeGreaterThanOrEqual(7);
  });
});
