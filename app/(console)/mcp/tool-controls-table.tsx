import { EditAndDeleteCell } from '@/components/console/edit-and-delete';
import { stacked } from '@/components/ui/stacked-rows';
import { ActionsHeaderCell, Cell, HeaderCell, Table } from '@/components/ui/table';
import { MomentBy } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { StoredMcpToolControl } from '@holdfast/engine/core';
import { capWords, controlName, priceWords, rateWords, spendLimitWords, unitPriceWords } from './control-format';
import { DeleteToolControl } from './delete-tool-control';

const editHref = ({ server, tool }: { server: string; tool: string }) =>
  `/mcp?${new URLSearchParams({ server, tool })}#tool-control-form`;

/** A value the control leaves to the gateway's own option. */
const GatewaysOwn = () => <span className="text-muted">gateway&apos;s own</span>;

/** The controls set in the console, by server and tool; admins also get Edit and Remove. */
export function ToolControlsTable({
  controls,
  manage,
  editing,
}: {
  controls: StoredMcpToolControl[];
  manage: boolean;
  editing?: { server: string; tool: string };
}) {
  if (controls.length === 0)
    return (
      <p className="text-[13px] text-muted" data-testid="tool-controls-empty">
        No controls are set in the console: every gateway runs with its own options (shown under Gateway instances).
      </p>
    );
  return (
    <Table data-testid="tool-controls-table" className={stacked.table}>
      <caption className="sr-only">Controls set in the console, by server and tool</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>Server</HeaderCell>
          <HeaderCell>Tool</HeaderCell>
          <HeaderCell numeric>Price</HeaderCell>
          <HeaderCell numeric>Rate and spend</HeaderCell>
          <HeaderCell numeric>Identical calls</HeaderCell>
          <HeaderCell>Updated</HeaderCell>
          {manage ? <ActionsHeaderCell /> : null}
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {controls.map((control) => {
          const current = editing?.server === control.server && editing.tool === control.tool;
          return (
            <tr
              key={`${control.server}/${control.tool}`}
              data-testid={`tool-control-${control.server}-${control.tool}`}
              aria-current={current ? 'true' : undefined}
              className={`${current ? 'bg-accent-soft align-top' : 'align-top'} ${stacked.row}`}
            >
              <Cell
                className={`min-w-28 font-mono text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`}
                data-label="Server"
              >
                {control.server}
              </Cell>
              <Cell
                className={`min-w-32 font-mono text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`}
                data-label="Tool"
              >
                {control.tool === '*' ? (
                  <span className="font-sans italic text-muted">every other tool</span>
                ) : (
                  <VisibleText text={control.tool} />
                )}
              </Cell>
              <Cell numeric className={stacked.cell} data-label="Price" data-testid="control-price">
                {/* One block: a phone's stacked cell lays out its children in a row. */}
                <div className="min-w-0">
                  {priceWords(control.priceMicros) ?? <GatewaysOwn />}
                  {control.unitPrice ? (
                    <span className="block text-[12px]" data-testid="control-unit-price">
                      and {unitPriceWords(control.unitPrice)}
                    </span>
                  ) : null}
                </div>
              </Cell>
              <Cell numeric className={stacked.cell} data-label="Rate and spend" data-testid="control-rate">
                <div className="min-w-0">
                  {rateWords(control.rateLimit) ?? <GatewaysOwn />}
                  {control.allAgentsRateLimit ? (
                    <span className="block text-[12px]" data-testid="control-all-agents-rate">
                      all agents: {rateWords(control.allAgentsRateLimit)}
                    </span>
                  ) : null}
                  {control.spendLimit ? (
                    <span className="block text-[12px]" data-testid="control-spend-limit">
                      spend: {spendLimitWords(control.spendLimit)} per agent
                    </span>
                  ) : null}
                </div>
              </Cell>
              <Cell numeric className={stacked.cell} data-label="Identical calls" data-testid="control-cap">
                {capWords(control.maxIdenticalCalls) ?? <GatewaysOwn />}
              </Cell>
              <Cell className={`text-[12px] text-muted ${stacked.cell}`} data-label="Updated">
                <MomentBy at={control.updatedAt} by={control.updatedBy} className="block min-w-0 md:min-w-48" />
              </Cell>
              {manage ? (
                <EditAndDeleteCell
                  editHref={editHref(control)}
                  editLabel={`Edit the controls of ${controlName(control.server, control.tool)}`}
                >
                  <DeleteToolControl server={control.server} tool={control.tool} />
                </EditAndDeleteCell>
              ) : null}
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
