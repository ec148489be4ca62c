'use client';

import type { RedriveBrakeRule } from '@holdfast/engine/core';
import { formatCount } from '@/lib/console/format';
import type { BulkRedrivePreviewData } from './bulk-redrive-preview-data';

/** How many items the redrive brakes will skip, in all and per brake (one item may count under two). */
export function BrakedCounts({
  preview,
  labels,
}: {
  preview: BulkRedrivePreviewData;
  labels: Record<RedriveBrakeRule, string>;
}) {
  return (
    <div className="text-[13px]" data-testid="bulk-redrive-brakes">
      <p>
        <span className="tabular-nums font-medium">{formatCount(preview.brakedTotal)}</span> will be skipped by the
        redrive brakes:
      </p>
      <ul className="ml-4 list-disc">
        {(Object.keys(labels) as RedriveBrakeRule[])
          .filter((rule) => preview.braked[rule] > 0)
          .map((rule) => (
            <li key={rule}>
              <span className="tabular-nums font-medium">{formatCount(preview.braked[rule])}</span> {labels[rule]}
            </li>
          ))}
      </ul>
      {preview.brakedTotal === preview.total ? <p className="text-muted">Nothing is left to redrive.</p> : null}
    </div>
  );
}
