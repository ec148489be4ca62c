import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';

export type JsonReading = { ok: true; value: unknown } | { ok: false; message: string };

/** What each syntax error means, said to a person editing JSON by hand. */
const MEANINGS: Record<string, string> = {
  ValueExpected: 'a value is expected',
  PropertyNameExpected: 'a property name in double quotes is expected',
  ColonExpected: 'a colon is expected after the property name',
  CommaExpected: 'a comma is expected',
  CloseBraceExpected: 'a closing } is expected',
  CloseBracketExpected: 'a closing ] is expected',
  EndOfFileExpected: 'nothing may follow the value',
  InvalidSymbol: 'this is not JSON here (strings take double quotes)',
  UnexpectedEndOfString: 'a string is not closed',
  InvalidCommentToken: 'comments are not JSON',
  InvalidEscapeCharacter: 'an escape in a string is not valid',
  InvalidCharacter: 'a character in a string must be escaped',
};

/**
 * Text as JSON, or what is wrong and where (line and column, counted from 1).
 * JSON.parse decides; the browsers' own messages rarely say where, so a
 * JSON scanner finds the place.
 */
export function readJson(text: string): JsonReading {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const errors: ParseError[] = [];
    parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    if (!first) return { ok: false, message: error instanceof Error ? error.message : String(error) };
    const code = printParseErrorCode(first.error);
    const before = text.slice(0, first.offset);
    const line = before.split('\n').length;
    const column = before.length - before.lastIndexOf('\n');
    return { ok: false, message: `${MEANINGS[code] ?? code} at line ${line}, column ${column}` };
  }
}
