import type { ReactNode } from 'react';

/** One labelled fact of a detail page's facts list (a `<dl>`): the label above, the value wrapping anywhere. */
export function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-[12px] text-muted">{label}</dt>
      <dd className="[overflow-wrap:anywhere]">{children}</dd>
    </div>
  );
}
