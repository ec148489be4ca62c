/**
 * The Markdown the runbooks are written in (docs/runbooks), read into blocks
 * the console renders as React elements: headings, paragraphs, lists, tables
 * and fenced code, with code spans, bold, emphasis and links inside them. A
 * subset on purpose: the runbooks use nothing else, and no HTML in the text is
 * ever rendered as HTML.
 */

export type Block =
  | { type: 'heading'; level: number; text: string; id: string }
  | { type: 'paragraph'; text: string }
  | { type: 'list'; ordered: boolean; start: number; items: string[] }
  | { type: 'table'; header: string[]; rows: string[][] }
  | { type: 'code'; text: string };

export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong'; text: string }
  | { type: 'em'; text: string }
  | { type: 'link'; text: string; href: string };

/** A heading's text as GitHub shows it: code spans, emphasis and links reduced to their words. */
export function headingText(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\*\*([^*]*)\*\*/g, '$1')
    .replace(/(^|[^\w])_([^_]+)_(?!\w)/g, '$1$2')
    .replace(/<[^>]*>/g, '');
}

/**
 * GitHub's anchor for a heading: lower case, punctuation dropped (letters,
 * digits, spaces, `-` and `_` kept), each space a `-`. Repeats get -1, -2, …
 * through `seen` (one per page).
 */
export function githubSlug(markdownHeading: string, seen?: Map<string, number>): string {
  const base = headingText(markdownHeading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
  if (!seen) return base;
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count === 0 ? base : `${base}-${count}`;
}

const FENCE = /^\s*```/;
const LIST_ITEM = /^(\s*)([-*]|\d+\.)\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());

/** The blocks of a Markdown text, in order. */
export function parseBlocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  const seen = new Map<string, number>();
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.trim() === '') {
      index++;
      continue;
    }
    if (FENCE.test(line)) {
      const indent = line.length - line.trimStart().length;
      const body: string[] = [];
      for (index++; index < lines.length && !FENCE.test(lines[index]!); index++) body.push(lines[index]!.slice(indent));
      index++;
      blocks.push({ type: 'code', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const text = heading[2]!.trim();
      blocks.push({ type: 'heading', level: heading[1]!.length, text, id: githubSlug(text, seen) });
      index++;
      continue;
    }
    if (line.trimStart().startsWith('|') && TABLE_SEPARATOR.test(lines[index + 1] ?? '')) {
      const header = cells(line);
      const rows: string[][] = [];
      for (index += 2; index < lines.length && lines[index]!.trimStart().startsWith('|'); index++) {
        rows.push(cells(lines[index]!));
      }
      blocks.push({ type: 'table', header, rows });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2]!);
      const items: string[] = [];
      // An item runs on over its indented lines; a blank line, a fence or a line at the margin ends the list.
      while (index < lines.length) {
        const next = LIST_ITEM.exec(lines[index]!);
        if (next && /\d/.test(next[2]!) === ordered && next[1]!.length === item[1]!.length) {
          items.push(next[3]!);
        } else if (lines[index]!.startsWith(' ') && !FENCE.test(lines[index]!) && items.length > 0) {
          items[items.length - 1] += ` ${lines[index]!.trim()}`;
        } else if (lines[index]!.trim() === '' && LIST_ITEM.exec(lines[index + 1] ?? '')?.[1] === item[1]) {
          // A blank line between two items of one list.
        } else break;
        index++;
      }
      blocks.push({ type: 'list', ordered, start: ordered ? Number.parseInt(item[2]!, 10) : 1, items });
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length && lines[index]!.trim() !== '' && !startsBlock(lines, index)) {
      paragraph.push(lines[index]!.trim());
      index++;
    }
    blocks.push({ type: 'paragraph', text: paragraph.join(' ') });
  }
  return blocks;
}

function startsBlock(lines: string[], index: number): boolean {
  const line = lines[index]!;
  return FENCE.test(line) || HEADING.test(line) || LIST_ITEM.test(line) || line.trimStart().startsWith('|');
}

const INLINE = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)|(?<![\w])_([^_]+)_(?![\w])/g;

/** The pieces of one line of text: plain text, code spans, bold, emphasis and links. */
export function parseInline(text: string): Inline[] {
  const pieces: Inline[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) pieces.push({ type: 'text', text: text.slice(last, match.index) });
    if (match[1] !== undefined) pieces.push({ type: 'code', text: match[1] });
    else if (match[2] !== undefined) pieces.push({ type: 'strong', text: match[2] });
    else if (match[3] !== undefined) pieces.push({ type: 'link', text: match[3], href: match[4]! });
    else pieces.push({ type: 'em', text: match[5]! });
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push({ type: 'text', text: text.slice(last) });
  return pieces;
}
