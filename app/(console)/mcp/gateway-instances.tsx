import { stacked } from '@/components/ui/stacked-rows';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import type { McpGatewayInstance } from '@/lib/queries/mcp-gateways';

/** The gateway instances heard from (latest first), with their version and options; forgotten after 7 days unheard. */
export function GatewayInstances({ instances }: { instances: McpGatewayInstance[] }) {
  return (
    <section aria-labelledby="mcp-instances-heading" className="mb-6">
      <h2 id="mcp-instances-heading" className="mb-2 text-[13px] font-semibold">
        Gateway instances
      </h2>
      {instances.length === 0 ? (
        <p className="text-[13px] text-muted" data-testid="mcp-instances-empty">
          No gateway has reported in the last 7 days.
        </p>
      ) : (
        <Table data-testid="mcp-instances-table" className={stacked.table}>
          <caption className="sr-only">Gateway instances, the latest heard first</caption>
          <thead className={stacked.head}>
            <tr>
              <HeaderCell>Server</HeaderCell>
              <HeaderCell>Version</HeaderCell>
              <HeaderCell>Last report</HeaderCell>
              <HeaderCell className="max-md:hidden">Started</HeaderCell>
              <HeaderCell>Options</HeaderCell>
            </tr>
          </thead>
          <tbody className={stacked.body}>
            {instances.map((instance) => (
              <tr
                key={instance.instanceId}
                className={`align-top ${stacked.row}`}
                data-testid={`mcp-instance-${instance.instanceId}`}
              >
                <Cell className={`font-mono text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Server">
                  {instance.server}
                </Cell>
                <Cell className={`text-[12px] ${stacked.cell}`} data-label="Version">
                  {instance.version}
                </Cell>
                <Cell className={`whitespace-nowrap text-[12px] ${stacked.cell}`} data-label="Last report">
                  <Moment value={instance.lastSeenAt} precision="second" />
                </Cell>
                <Cell className="whitespace-nowrap text-[12px] max-md:hidden">
                  <Moment value={instance.startedAt} />
                </Cell>
                <Cell className={`min-w-48 text-[12px] ${stacked.controls}`}>
                  <details>
                    <summary className="cursor-pointer text-accent">
                      {Object.keys(instance.config).length} options, reported by {instance.reportedBy}
                    </summary>
                    <dl className="mt-1 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5">
                      {Object.entries(instance.config).map(([name, value]) => (
                        <div key={name} className="contents">
                          <dt className="text-muted">{name}</dt>
                          <dd className="font-mono [overflow-wrap:anywhere]">{String(value) || '—'}</dd>
                        </div>
                      ))}
                    </dl>
                  </details>
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </section>
  );
}
