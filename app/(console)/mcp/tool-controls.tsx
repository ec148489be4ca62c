import Link from 'next/link';
import type { Decision, StoredMcpToolControl } from '@holdfast/engine/core';
import type { McpGatewaysView } from '@/lib/queries/mcp-gateways';
import { formValuesOf } from './control-format';
import { ToolControlForm } from './tool-control-form';
import { ToolControlsTable } from './tool-controls-table';

/**
 * The controls set in the console for the servers' tools (a price per call, a rate per agent, a cap on identical
 * calls), which the gateways take with their next report's answer; admins set and remove them here.
 */
export function ToolControls({
  view,
  manage,
  editing,
}: {
  view: McpGatewaysView;
  manage: Decision;
  editing?: StoredMcpToolControl;
}) {
  const editingKey = editing ? `${editing.server}/${editing.tool}` : 'new';
  return (
    <section id="tool-controls" aria-labelledby="tool-controls-heading" className="mb-6">
      <div className="mb-1 flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="tool-controls-heading" className="text-[13px] font-semibold" tabIndex={-1}>
          Tool controls
        </h2>
        <Link href="/audit?targetType=mcp_tool_control" className="text-[12px] text-accent hover:underline">
          Changes in the audit log
        </Link>
      </div>
      <p className="mb-2 max-w-3xl text-[12px] text-muted">
        Set here, a tool&apos;s price per call and per unit, its rates (per agent, all agents together), its spend limit
        per agent and its cap on identical calls in a session replace the gateway&apos;s own options for it (and{' '}
        <code>*</code> its defaults), in every gateway in front of the server, from its next report: within 30 seconds.
        A blank stays the gateway&apos;s own. Breakers are set on the{' '}
        <Link href="/pauses#breakers-heading" className="text-accent underline">
          Pauses
        </Link>{' '}
        page (the downstream <code>mcp:&lt;server&gt;</code>).
      </p>
      {manage.allowed ? null : (
        <p className="mb-2 text-[12px] text-muted" data-testid="tool-controls-read-only">
          Read only: {manage.reason}.
        </p>
      )}
      <ToolControlsTable controls={view.controls} manage={manage.allowed} editing={editing} />
      {manage.allowed ? (
        <ToolControlForm key={editingKey} view={view} control={editing && formValuesOf(editing)} />
      ) : null}
    </section>
  );
}
