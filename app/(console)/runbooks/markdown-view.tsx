import Link from 'next/link';
import type { ReactNode } from 'react';
import { type Block, type Inline, parseBlocks, parseInline } from '@/lib/console/markdown-blocks';
import { RUNBOOKS_PATH } from '@/lib/alerts/runbooks';

/**
 * Where a runbook's link goes in the console: a sibling runbook to its page,
 * an anchor or a web address as written; a link to a code file or another
 * doc (not served here) is shown as its text, with the path as a title.
 */
function consoleHref(href: string): string | undefined {
  if (/^https?:\/\//.test(href) || href.startsWith('#')) return href;
  const sibling = /^(?:\.\/)?([a-z0-9-]+|README)\.md(#.*)?$/i.exec(href);
  if (!sibling) return undefined;
  const page = sibling[1]!.toLowerCase() === 'readme' ? RUNBOOKS_PATH : `${RUNBOOKS_PATH}/${sibling[1]}`;
  return `${page}${sibling[2] ?? ''}`;
}

/** A code span that is a console path (`/holds?reason=stale_lock`) is a link to it; one with a placeholder is not. */
const isConsolePath = (code: string) => /^\/[a-z-]*(\/[\w%:.-]+)*(\?[\w%:=&.-]*)?$/.test(code) && !code.includes('<');

function InlineText({ text }: { text: string }) {
  return <>{parseInline(text).map((piece, index) => renderInline(piece, index))}</>;
}

function renderInline(piece: Inline, key: number): ReactNode {
  const codeClass = 'rounded bg-line/40 px-1 font-mono text-[12px]';
  switch (piece.type) {
    case 'text':
      return piece.text;
    case 'strong':
      return <strong key={key}>{piece.text}</strong>;
    case 'em':
      return <em key={key}>{piece.text}</em>;
    case 'code':
      return isConsolePath(piece.text) ? (
        <Link key={key} href={piece.text} className={`${codeClass} text-accent hover:underline`}>
          {piece.text}
        </Link>
      ) : (
        <code key={key} className={codeClass}>
          {piece.text}
        </code>
      );
    case 'link': {
      const href = consoleHref(piece.href);
      const label = <InlineText text={piece.text} />;
      if (!href)
        return (
          <span key={key} title={piece.href}>
            {label}
          </span>
        );
      return href.startsWith('/') || href.startsWith('#') ? (
        <Link key={key} href={href} className="text-accent hover:underline">
          {label}
        </Link>
      ) : (
        <a key={key} href={href} className="text-accent hover:underline" rel="noreferrer noopener">
          {label}
        </a>
      );
    }
  }
}

const headingClass: Record<number, string> = {
  1: 'mb-1 text-lg font-semibold tracking-tight',
  2: 'mb-2 mt-6 text-[15px] font-semibold',
  3: 'mb-1 mt-4 text-[14px] font-semibold',
};

function renderBlock(block: Block, key: number): ReactNode {
  switch (block.type) {
    case 'heading': {
      const Tag = `h${Math.min(block.level, 4)}` as 'h1' | 'h2' | 'h3' | 'h4';
      return (
        <Tag key={key} id={block.id} className={headingClass[block.level] ?? 'mt-3 font-semibold'}>
          <InlineText text={block.text} />
        </Tag>
      );
    }
    case 'paragraph':
      return (
        <p key={key} className="my-2 max-w-prose">
          <InlineText text={block.text} />
        </p>
      );
    case 'list': {
      const items = block.items.map((item, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a page's list items are fixed text, never reordered.
        <li key={index} className="my-1">
          <InlineText text={item} />
        </li>
      ));
      return block.ordered ? (
        <ol key={key} start={block.start} className="my-2 max-w-prose list-decimal pl-6">
          {items}
        </ol>
      ) : (
        <ul key={key} className="my-2 max-w-prose list-disc pl-6">
          {items}
        </ul>
      );
    }
    case 'table':
      return (
        <div key={key} className="my-3 max-w-full overflow-x-auto">
          {/* Words are not broken inside a table (the page breaks anywhere): a wide table scrolls in its box. */}
          <table className="border-collapse text-[12px] [overflow-wrap:normal]">
            <thead>
              <tr>
                {block.header.map((cell, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed.
                  <th key={index} className="min-w-[9rem] border border-line px-2 py-1 text-left font-medium">
                    <InlineText text={cell} />
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row, rowIndex) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows are fixed text.
                <tr key={rowIndex} className="align-top">
                  {row.map((cell, index) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are fixed.
                    <td key={index} className="min-w-[9rem] border border-line px-2 py-1">
                      <InlineText text={cell} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case 'code':
      return (
        <pre key={key} className="my-2 max-w-full overflow-x-auto rounded bg-line/40 p-2 font-mono text-[12px]">
          {block.text}
        </pre>
      );
  }
}

/** A runbook rendered in the console, from its Markdown. */
export function MarkdownView({ markdown }: { markdown: string }) {
  return (
    <article className="text-[13px] [overflow-wrap:anywhere]" data-testid="runbook">
      {parseBlocks(markdown).map(renderBlock)}
    </article>
  );
}
