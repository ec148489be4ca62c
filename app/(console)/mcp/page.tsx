import type { Metadata } from 'next';
import Link from 'next/link';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { Moment } from '@/components/ui/time';
import { getMcpGateways } from '@/lib/queries/mcp-gateways';
import { readConsole } from '@/lib/server/read-source/read-console';
import { readNotice } from '@/lib/server/read-source/notice';
import { requirePerson } from '@/lib/server/session';
import {
  DEFAULT_TIME_WINDOW,
  resolveTimeWindow,
  timeWindowLabel,
  timeWindowName,
} from '@holdfast/protocol/time-window';
import { GatewayInstances } from './gateway-instances';
import { OUTCOME_COLUMNS, ToolsTable } from './tools-table';
import { ToolControls } from './tool-controls';
import { decide } from '@holdfast/engine/core';

export const metadata: Metadata = { title: 'MCP gateways' };
export const dynamic = 'force-dynamic';

/**
 * What the MCP gateways in front of each server did with each tool's calls: run as steps, replayed, refused and
 * why, rate-limited, stopped in a loop; what the tools' steps cost; their breakers; and the gateway instances heard
 * from, with their version and options.
 */
export default async function McpGatewaysPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const manage = decide(person, 'mcp_tools.manage');
  const params = await searchParams;
  const parsed = timeWindowName.safeParse(params.window);
  const window = parsed.success ? parsed.data : DEFAULT_TIME_WINDOW;
  const { value: view, source } = await readConsole((db) => getMcpGateways(db, resolveTimeWindow(window, new Date())));
  const editing = manage.allowed
    ? view.controls.find((control) => control.server === params.server && control.tool === params.tool)
    : undefined;

  return (
    <>
      <PageHeader
        title="MCP gateways"
        description="Each tool of each MCP server behind a Holdfast gateway: what became of its calls (the gateways report every 30 s), what its steps cost, and its breakers; then the gateways themselves."
        actions={
          <SegmentedLinks
            label="Time window"
            links={timeWindowName.options.map((name) => ({
              href: `/mcp?window=${name}`,
              label: name,
              title: timeWindowLabel[name],
              active: window === name,
            }))}
          />
        }
      />
      <ReadSourceNotice notice={readNotice(source)} />
      {view.servers.length === 0 ? (
        <EmptyState title="No gateway reported calls in this window" testId="mcp-empty">
          Put the gateway in front of an MCP server (holdfast-mcp, see the MCP gateway page of the docs): within 30
          seconds of its first calls, its server and tools show here.
        </EmptyState>
      ) : (
        view.servers.map((server) => (
          <section
            key={server.server}
            aria-labelledby={`mcp-server-${server.server}`}
            className="mb-6"
            data-testid={`mcp-server-${server.server}`}
          >
            <h2 id={`mcp-server-${server.server}`} className="mb-1 text-[14px] font-medium">
              <span className="font-mono">{server.server}</span>
              {server.openBreakers > 0 ? (
                <Link href="/pauses#breakers-heading" className="ml-2 text-[12px] text-danger hover:underline">
                  breaker open for {server.openBreakers} agent{server.openBreakers === 1 ? '' : 's'}
                </Link>
              ) : null}
            </h2>
            <ToolsTable tools={server.tools} />
          </section>
        ))
      )}
      <ToolControls view={view} manage={manage} editing={editing} />
      <GatewayInstances instances={view.instances} />
      <section aria-labelledby="mcp-columns-heading" className="mt-6">
        <h2 id="mcp-columns-heading" className="mb-2 text-[13px] font-semibold">
          What each column counts
        </h2>
        <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-[12px] sm:grid-cols-[max-content_1fr]">
          {OUTCOME_COLUMNS.map((column) => (
            <div key={column.label} className="contents">
              <dt className="font-medium">{column.label}</dt>
              <dd className="text-muted">{column.meaning}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-2 text-[12px] text-muted">
          Counted by each gateway in its memory and sent every 30 seconds and when it stops; counts are kept per UTC
          hour, so a window is read from the hour holding its start. <Moment value={new Date()} /> now.
        </p>
      </section>
    </>
  );
}
