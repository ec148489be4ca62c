/** Text for a LIKE pattern taken literally: a person's `%`, `_` or `\` means itself. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
