/**
 * Text PostgreSQL can store. JSON may carry a UTF-16 surrogate on its own
 * ("\ud800"): JavaScript keeps it in a string, but it is no character, UTF-8
 * cannot encode it, and PostgreSQL refuses it in jsonb (an error from the
 * database, a 500) or, in text, is handed U+FFFD instead (silently another
 * value). NUL likewise: text and jsonb cannot hold it. Both are refused at
 * every input, naming the field.
 */

/** In unicode mode a paired surrogate is one code point outside the range: only a lone one matches. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

export const NUL_MESSAGE = 'must not contain NUL characters (\\u0000): PostgreSQL cannot store them';
export const LONE_SURROGATE_MESSAGE =
  'must not contain a lone UTF-16 surrogate (such as \\ud800): it is not a character, and cannot be stored';

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** What is wrong with a text for PostgreSQL (NUL, lone surrogate), or undefined when it can be stored as it is. */
export function unstorableTextProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  if (hasLoneSurrogate(text)) return LONE_SURROGATE_MESSAGE;
  return undefined;
}
