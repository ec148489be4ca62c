import { EditAndDeleteCell } from '@/components/console/edit-and-delete';
import { EmptyState } from '@/components/ui/empty-state';
import { stacked } from '@/components/ui/stacked-rows';
import { ActionsHeaderCell, Cell, HeaderCell, Table } from '@/components/ui/table';
import { MomentBy } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { PriceOverrideRow } from '@/lib/queries/pricing-settings';
import { DeleteOverride } from './delete-override';
import { formatPerMillion, overrideName } from './pricing-format';

const editHref = ({ provider, model }: { provider: string; model: string }) =>
  `/settings/pricing?${new URLSearchParams({ provider, model })}#override-form`;

/** Every override with its prices and who set them when; admins also get Edit and Delete. */
export function OverridesTable({
  overrides,
  manage,
  editing,
  headingId,
}: {
  overrides: PriceOverrideRow[];
  manage: boolean;
  editing?: { provider: string; model: string };
  /** The section's heading, focused when a deleted row takes its button away. */
  headingId: string;
}) {
  if (overrides.length === 0)
    return (
      <EmptyState title="No price overrides" testId="overrides-empty">
        Every model call that reports tokens is priced by the bundled price table at the call&apos;s start.
        {manage
          ? ' Add an override below for a price you negotiated.'
          : ' An admin can add one for a negotiated price.'}
      </EmptyState>
    );
  return (
    <Table data-testid="overrides-table" className={stacked.table}>
      <caption className="sr-only">Price overrides, in USD per million tokens, by provider and model</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>Provider</HeaderCell>
          <HeaderCell>Model</HeaderCell>
          <HeaderCell numeric className="whitespace-nowrap">
            Input
          </HeaderCell>
          <HeaderCell numeric className="whitespace-nowrap">
            Output
          </HeaderCell>
          <HeaderCell numeric className="whitespace-nowrap">
            Cache read
          </HeaderCell>
          <HeaderCell numeric className="whitespace-nowrap">
            Cache write
          </HeaderCell>
          <HeaderCell>Updated</HeaderCell>
          {/* relative: an sr-only label is placed against its cell, not the page, so it cannot widen a phone's page. */}
          {manage ? <ActionsHeaderCell /> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {overrides.map((row) => {
          const current = editing?.provider === row.provider && editing.model === row.model;
          const name = overrideName(row);
          return (
            <tr
              key={`${row.provider}/${row.model}`}
              data-testid={`override-row-${row.provider || '*'}-${row.model}`}
              aria-current={current ? 'true' : undefined}
              className={`${current ? 'bg-accent-soft align-top' : 'align-top'} ${stacked.row}`}
            >
              <Cell className={`text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Provider">
                {row.provider === '' ? (
                  <span className="italic text-muted">any</span>
                ) : (
                  <span className="font-mono">{row.provider}</span>
                )}
              </Cell>
              <Cell
                className={`min-w-32 font-mono text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`}
                data-label="Model"
              >
                <VisibleText text={row.model} />
              </Cell>
              <Cell numeric className={stacked.cell} data-label="Input" data-testid="override-input">
                {formatPerMillion(row.inputPerMillion)}
              </Cell>
              <Cell numeric className={stacked.cell} data-label="Output" data-testid="override-output">
                {formatPerMillion(row.outputPerMillion)}
              </Cell>
              <Cell numeric className={stacked.cell} data-label="Cache read" data-testid="override-cache-read">
                <CachePrice value={row.cacheReadPerMillion} />
              </Cell>
              <Cell numeric className={stacked.cell} data-label="Cache write" data-testid="override-cache-write">
                <CachePrice value={row.cacheWritePerMillion} />
              </Cell>
              <Cell className={`text-[12px] text-muted ${stacked.cell}`} data-label="Updated">
                {/* Wide enough for a person's address on one line: a long model takes the rest of the row. */}
                <MomentBy at={row.updatedAt} by={row.updatedBy} className="block min-w-0 md:min-w-48" />
              </Cell>
              {manage ? (
                <EditAndDeleteCell editHref={editHref(row)} editLabel={`Edit the override for ${name}`}>
                  <DeleteOverride provider={row.provider} model={row.model} headingId={headingId} />
                </EditAndDeleteCell>
              ) : null}
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}

/** A cache price left out costs the input price. */
function CachePrice({ value }: { value: number | null }) {
  return value === null ? (
    <span className="text-muted" title="Cached tokens cost the input price">
      = input
    </span>
  ) : (
    formatPerMillion(value)
  );
}
