import { visibleText } from '@/lib/console/visible-text';
import { VisibleText } from './visible-text';

/** Texts longer than this, or with more than one line, are shown clamped with the whole text behind "Show all". */
const SHORT_TEXT = 240;

/**
 * An error text or a hold's detail, however long: a few lines, wrapped even
 * inside unbroken tokens (a 400-character URL), and the whole text behind a
 * native "Show all" (keyboard-accessible, no script) in a scrolling block that
 * keeps line breaks, as a stack trace needs. It never widens its table.
 * Bidi controls are shown as markers, never applied (see VisibleText).
 */
export function LongText({ text: stored, lines = 3, testId }: { text: string; lines?: 2 | 3 | 4; testId?: string }) {
  const text = visibleText(stored);
  const clamp = { 2: 'line-clamp-2', 3: 'line-clamp-3', 4: 'line-clamp-4' }[lines];
  if (text.length <= SHORT_TEXT && !text.includes('\n')) {
    return (
      <span className="[overflow-wrap:anywhere]" data-testid={testId}>
        <VisibleText text={stored} />
      </span>
    );
  }
  return (
    <div className="min-w-0 [overflow-wrap:anywhere]" data-testid={testId}>
      <p className={clamp}>
        <VisibleText text={stored} />
      </p>
      <details className="mt-0.5">
        <summary className="cursor-pointer text-[12px] text-accent">
          Show all ({text.length.toLocaleString('en-US')} characters)
        </summary>
        {/* Focusable, so the scrolling block can be scrolled from the keyboard. */}
        <pre
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard.
          tabIndex={0}
          className="mt-1 max-h-80 overflow-auto whitespace-pre-wrap rounded border border-line bg-surface-raised p-2 font-mono text-[12px] [overflow-wrap:anywhere]"
        >
          <VisibleText text={stored} />
        </pre>
      </details>
    </div>
  );
}
