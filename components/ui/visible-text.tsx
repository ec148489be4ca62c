import { Fragment } from 'react';
import { visibleTextParts } from '@/lib/console/visible-text';

/**
 * Agent-written text (a step, agent, task or queue name, an error text, a hold's
 * detail, a payload) as the console shows it: each bidi control becomes a
 * marked ⟨U+202E⟩ with an explanation on hover, never applied, and the whole
 * text is isolated (<bdi>), so a right-to-left name cannot reorder the text
 * beside it either. Renders only inline content, so it fits in a link, a cell
 * or a <pre>.
 */
export function VisibleText({ text, testId }: { text: string | null | undefined; testId?: string }) {
  return (
    <bdi data-testid={testId}>
      {visibleTextParts(text).map((part) =>
        part.kind === 'text' ? (
          <Fragment key={part.offset}>{part.text}</Fragment>
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
