import Link from 'next/link';
import type { ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { RUNBOOKS_PATH } from '@holdfast/engine/alerts';
import { githubSlug } from '@/lib/console/heading-anchor';

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

const CODE_CLASS = 'rounded bg-line/40 px-1 font-mono text-[12px]';
const HEADING_CLASS = {
  h1: 'mb-1 text-lg font-semibold tracking-tight',
  h2: 'mb-2 mt-6 text-[15px] font-semibold',
  h3: 'mb-1 mt-4 text-[14px] font-semibold',
  h4: 'mt-3 font-semibold',
} as const;

/** The words of a rendered element, as the anchor of a heading is made from them. */
function textOf(node: { type: string; value?: string; children?: unknown[] } | undefined): string {
  if (!node) return '';
  if (node.type === 'text') return node.value ?? '';
  return (node.children ?? []).map((child) => textOf(child as typeof node)).join('');
}

/** The console's rendering of each element, with each heading's anchor as GitHub makes it (one per page). */
function runbookComponents(): Components {
  const seen = new Map<string, number>();
  const heading =
    (Tag: keyof typeof HEADING_CLASS): Components['h1'] =>
    ({ node, children }) => (
      <Tag id={githubSlug(textOf(node), seen)} className={HEADING_CLASS[Tag]}>
        {children}
      </Tag>
    );
  return {
    h1: heading('h1'),
    h2: heading('h2'),
    h3: heading('h3'),
    h4: heading('h4'),
    h5: heading('h4'),
    h6: heading('h4'),
    p: ({ children }) => <p className="my-2 max-w-prose">{children}</p>,
    ul: ({ children }) => <ul className="my-2 max-w-prose list-disc pl-6">{children}</ul>,
    ol: ({ children, start }) => (
      <ol start={start} className="my-2 max-w-prose list-decimal pl-6">
        {children}
      </ol>
    ),
    li: ({ children }) => <li className="my-1">{children}</li>,
    table: ({ children }) => (
      <div className="my-3 max-w-full overflow-x-auto">
        {/* Words are not broken inside a table (the page breaks anywhere): a wide table scrolls in its box. */}
        <table className="border-collapse text-[12px] [overflow-wrap:normal]">{children}</table>
      </div>
    ),
    tr: ({ children }) => <tr className="align-top">{children}</tr>,
    th: ({ children }) => (
      <th className="min-w-[9rem] border border-line px-2 py-1 text-left font-medium">{children}</th>
    ),
    td: ({ children }) => <td className="min-w-[9rem] border border-line px-2 py-1">{children}</td>,
    pre: ({ children }) => (
      <pre className="my-2 max-w-full overflow-x-auto rounded bg-line/40 p-2 font-mono text-[12px]">{children}</pre>
    ),
    // A fenced block's text ends with a line break; a code span's never holds one.
    code: ({ children }) => {
      const text = String(children ?? '');
      if (text.includes('\n')) return <code>{children}</code>;
      return isConsolePath(text) ? (
        <Link href={text} className={`${CODE_CLASS} text-accent hover:underline`}>
          {text}
        </Link>
      ) : (
        <code className={CODE_CLASS}>{children}</code>
      );
    },
    a: ({ href, children }): ReactNode => {
      const target = href ? consoleHref(href) : undefined;
      if (!target) return <span title={href}>{children}</span>;
      return target.startsWith('/') || target.startsWith('#') ? (
        <Link href={target} className="text-accent hover:underline">
          {children}
        </Link>
      ) : (
        <a href={target} className="text-accent hover:underline" rel="noreferrer noopener">
          {children}
        </a>
      );
    },
  };
}

/**
 * A runbook rendered in the console, from its Markdown (GitHub's flavour, as the docs are read on GitHub). HTML in
 * the text is never rendered as HTML: react-markdown leaves it out.
 */
export function MarkdownView({ markdown }: { markdown: string }) {
  return (
    <article className="text-[13px] [overflow-wrap:anywhere]" data-testid="runbook">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={runbookComponents()} skipHtml>
        {markdown}
      </ReactMarkdown>
    </article>
  );
}
