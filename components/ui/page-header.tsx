import type { ReactNode } from 'react';
import { VisibleText } from './visible-text';

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: string;
  actions?: ReactNode;
}) {
  return (
    <header className="mb-5 flex flex-wrap items-end justify-between gap-3">
      {/* A title may be a long step or task id: it wraps rather than widening the page. */}
      <div className="min-w-0 [overflow-wrap:anywhere]">
        {/* Titles and descriptions name agents' tasks and steps: their bidi controls are shown, not applied. */}
        <h1 className="text-lg font-semibold tracking-tight">
          <VisibleText text={title} />
        </h1>
        {description ? (
          <p className="mt-0.5 text-[13px] text-muted">
            <VisibleText text={description} />
          </p>
        ) : null}
      </div>
      {actions ? <div className="flex flex-wrap items-center gap-3">{actions}</div> : null}
    </header>
  );
}
