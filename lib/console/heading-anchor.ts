/**
 * The anchors GitHub gives Markdown headings, which the docs link to and the console's runbook pages carry (the
 * runbooks are rendered with react-markdown: app/(console)/runbooks/markdown-view.tsx).
 */

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
