import Link from 'next/link';
import { ChoiceFilter, LeastValueFilter } from '@/components/console/filter-fields';
import { ListFilters } from '@/components/console/list-page';
import { Field } from '@/components/ui/field';
import { Select } from '@/components/ui/select';
import { holdReasons, type HoldReason } from '@holdfast/protocol/enums';
import type { HoldsFilter } from '@/lib/filters/holds';
import { holdsFilterLabels, holdsHref } from '@/lib/console/filter-forms/holds';
import { holdReasonLabels } from '@/lib/console/labels/hold-reasons';

/** The open holds per reason, each a link that filters the list to that reason (or, when chosen, back). */
export function HoldReasonCounts({
  filter,
  counts,
}: {
  filter: HoldsFilter;
  counts: { reason: HoldReason; count: number }[];
}) {
  return (
    <nav
      aria-label="Open holds per reason"
      className="mb-3 flex flex-wrap gap-2 text-[12px]"
      data-testid="hold-reason-counts"
    >
      {counts.length === 0 ? <span className="text-muted">No open holds match.</span> : null}
      {counts.map(({ reason, count }) => (
        <Link
          key={reason}
          href={holdsHref(filter, { view: undefined, reason: filter.reason === reason ? undefined : reason })}
          aria-current={filter.reason === reason ? 'true' : undefined}
          className="rounded-full border border-line px-2.5 py-0.5 hover:bg-surface-raised aria-[current]:border-accent"
        >
          {holdReasonLabels[reason]} <span className="font-mono text-muted">{reason}</span>{' '}
          <span className="tabular-nums font-medium">{count}</span>
        </Link>
      ))}
    </nav>
  );
}

/** The Holds page's filters; "Clear filters" goes back to the open holds of everyone. */
export function HoldFilters({ filter, owners }: { filter: HoldsFilter; owners: string[] }) {
  // holdsHref leaves defaults out, so the bare page means nothing is filtered.
  const filtered = holdsHref(filter, {}) !== '/holds';
  return (
    <ListFilters label="Filter holds" testId="hold-filters" clearHref={filtered ? '/holds' : undefined}>
      <Field label={holdsFilterLabels.view}>
        <Select name="view" defaultValue={filter.view}>
          <option value="open">Open</option>
          <option value="cleared">Cleared</option>
        </Select>
      </Field>
      <ChoiceFilter
        label={holdsFilterLabels.owner}
        name="owner"
        value={filter.owner}
        choices={owners}
        anyLabel="Anyone"
      />
      <ChoiceFilter
        label={holdsFilterLabels.reason}
        name="reason"
        value={filter.reason}
        choices={holdReasons}
        labelOf={(reason) => `${holdReasonLabels[reason as HoldReason]} (${reason})`}
      />
      <LeastValueFilter label={holdsFilterLabels.minAgeHours} name="minAgeHours" value={filter.minAgeHours} />
      <label className="flex items-center gap-1.5 text-[13px]">
        <input type="checkbox" name="mine" value="1" defaultChecked={filter.mine} /> {holdsFilterLabels.mine}
      </label>
      <label className="flex items-center gap-1.5 text-[13px]">
        <input type="checkbox" name="frozen" value="1" defaultChecked={filter.frozen} /> {holdsFilterLabels.frozen}
      </label>
    </ListFilters>
  );
}
