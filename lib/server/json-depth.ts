/** The deepest nesting of objects and arrays a request body may have; real payloads use a handful of levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text opens more than `limit` objects or arrays inside
 * one another. Checked on the text before parsing, in one loop, so that no
 * recursive code (hashing, validation, the database driver) ever sees a
 * structure deep enough to overflow its stack. Brackets inside strings do not count.
 */
export function exceedsJsonDepth(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index += 1; // a backslash escapes the next character, `\"` included
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth -= 1;
    }
  }
  return false;
}
