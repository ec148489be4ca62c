import type { ReactNode } from 'react';

export function EmptyState({ title, children, testId }: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <div data-testid={testId} className="rounded-lg border border-dashed border-line bg-surface px-6 py-10 text-center">
      <p className="font-medium">{title}</p>
      {children ? <div className="mx-auto mt-1.5 max-w-prose text-[13px] text-muted">{children}</div> : null}
    </div>
  );
}
