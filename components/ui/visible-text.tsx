import { Fragment, type ReactNode } from 'react';
import { visibleTextParts } from '@/lib/console/visible-text';

/** Ids and names no longer than this get a line-break opportunity after each separator. */
const BREAKABLE_ID_LENGTH = 500;
/** Where an id may break across lines: after `/ : . _ - @`, so `team:payments` wraps as `team:` `payments`. */
const SEPARATOR = /([/:._\-@])/;

/** The text with a <wbr> after each separator (no character is added: copying gives the text as it is). */
function withBreaks(text: string): ReactNode {
  if (text.length > BREAKABLE_ID_LENGTH || !SEPARATOR.test(text)) return text;
  const pieces: ReactNode[] = [];
  let offset = 0;
  for (const piece of text.split(SEPARATOR)) {
    // Split with a capturing group: separators come back as pieces of their own, and a break follows each.
    pieces.push(
      SEPARATOR.test(piece) ? (
        <Fragment key={offset}>
          {piece}
          <wbr />
        </Fragment>
      ) : (
        piece
      ),
    );
    offset += piece.length;
  }
  return pieces;
}

/**
 * Agent-written text (a step, agent, task or queue name, an error text, a hold's
 * detail, a payload) as the console shows it: each bidi control becomes a
 * marked ⟨U+202E⟩ with an explanation on hover, never applied, and the whole
 * text is isolated (<bdi>), so a right-to-left name cannot reorder the text
 * beside it either. Renders only inline content, so it fits in a link, a cell
 * or a <pre>. A short text (an id or a name) may break after its separators,
 * so a narrow cell wraps `team:payments` at the colon rather than mid-word
 * (with `[overflow-wrap:break-word]` on the cell; `anywhere` still breaks
 * mid-word, to keep a long text inside its box).
 */
export function VisibleText({ text, testId }: { text: string | null | undefined; testId?: string }) {
  return (
    <bdi data-testid={testId}>
      {visibleTextParts(text).map((part) =>
        part.kind === 'text' ? (
          <Fragment key={part.offset}>{withBreaks(part.text)}</Fragment>
        ) : (
          <span
            key={part.offset}
            title={part.description}
            data-bidi-control={part.marker}
            className="rounded-sm bg-warn-soft px-0.5 font-mono text-[0.85em] text-warn"
          >
            {part.marker}
          </span>
        ),
      )}
    </bdi>
  );
}
