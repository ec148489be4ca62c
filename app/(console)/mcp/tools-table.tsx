import Link from 'next/link';
import { stacked } from '@/components/ui/stacked-rows';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { VisibleText } from '@/components/ui/visible-text';
import { formatCount, formatMicros } from '@/lib/console/format';
import type { McpToolRow } from '@/lib/queries/mcp-gateways';
import type { McpCallOutcome } from '@holdfast/protocol/inputs/mcp-gateway-report-input';

/** The outcome columns, each one or several outcomes, and what they count. */
export const OUTCOME_COLUMNS: { label: string; outcomes: McpCallOutcome[]; meaning: string; phone?: true }[] = [
  { label: 'Ran', outcomes: ['ran'], meaning: 'guarded calls the tool ran, each a Holdfast step', phone: true },
  {
    label: 'Replayed',
    outcomes: ['replayed'],
    meaning: 'repeats answered from the stored result, not run again (marked io.holdfast/replayed)',
    phone: true,
  },
  { label: 'Through', outcomes: ['passed_through'], meaning: 'calls of unguarded tools, passed straight through' },
  {
    label: 'Refused',
    outcomes: ['refused_unknown_tool', 'refused_arguments', 'refused_meta', 'refused_keyless'],
    meaning:
      "the caller's mistakes: an unknown tool, arguments the schema refuses, bad _meta, a keyless call of a tool that needs a key",
    phone: true,
  },
  {
    label: 'Rate-limited',
    outcomes: ['rate_limited'],
    meaning:
      'calls past a rate or a spend limit (--rate-limit, --tool-rate-limit, --session-rate-limit, --spend-limit)',
  },
  {
    label: 'Loops stopped',
    outcomes: ['loop_stopped'],
    meaning: 'calls past the cap on identical calls in a session (--max-identical-calls)',
  },
  {
    label: 'Waited',
    outcomes: ['waited'],
    meaning: 'answered "try again": the same call in flight, a backoff, an empty pool, a pause or an open breaker',
  },
  {
    label: 'Stopped',
    outcomes: ['stopped', 'holdfast_failed'],
    meaning: 'answered "do not retry" (a hold or dead letter for the owner), or Holdfast could not be reached',
  },
];

/** Each refusal's reason, as the Refused cell breaks its count down. */
const REFUSAL_REASONS: [McpCallOutcome, string][] = [
  ['refused_unknown_tool', 'unknown tool'],
  ['refused_arguments', 'arguments'],
  ['refused_meta', '_meta'],
  ['refused_keyless', 'keyless'],
];

const sum = (tool: McpToolRow, outcomes: McpCallOutcome[]) =>
  outcomes.reduce((total, outcome) => total + tool.outcomes[outcome], 0);
const wideOnly = 'max-md:hidden';

/** One server's tools, most calls first: what became of their calls, their steps' attempts and cost, breakers. */
export function ToolsTable({ tools }: { tools: McpToolRow[] }) {
  return (
    <Table data-testid="mcp-tools-table" className={stacked.table}>
      <caption className="sr-only">The server's tools, most calls first</caption>
      <thead className={stacked.head}>
        <tr>
          <HeaderCell>Tool</HeaderCell>
          <HeaderCell numeric>Calls</HeaderCell>
          {OUTCOME_COLUMNS.map((column) => (
            <HeaderCell key={column.label} numeric title={column.meaning} className={column.phone ? '' : wideOnly}>
              {column.label}
            </HeaderCell>
          ))}
          <HeaderCell numeric className={wideOnly}>
            Attempts
          </HeaderCell>
          <HeaderCell numeric>Cost</HeaderCell>
        </tr>
      </thead>
      <tbody className={stacked.body}>
        {tools.map((tool) => (
          <tr key={tool.tool} data-testid={`mcp-tool-${tool.tool}`} className={stacked.row}>
            <Cell
              className={`min-w-32 max-w-72 font-mono text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`}
              data-label="Tool"
            >
              <Link
                href={`/steps?q=${encodeURIComponent(`${tool.server}:${tool.tool}`)}`}
                className="text-accent hover:underline"
              >
                <VisibleText text={tool.tool} />
              </Link>
              {tool.openBreakers > 0 ? (
                <span className="ml-1 text-[11px] text-danger" data-testid="tool-breaker">
                  breaker open
                </span>
              ) : null}
            </Cell>
            <Cell numeric className={stacked.cell} data-label="Calls" data-testid="calls">
              {formatCount(tool.calls)}
            </Cell>
            {OUTCOME_COLUMNS.map((column) => (
              <Cell
                key={column.label}
                numeric
                className={column.phone ? stacked.cell : wideOnly}
                data-label={column.label}
                data-testid={`outcome-${column.outcomes[0]}`}
              >
                {formatCount(sum(tool, column.outcomes))}
                {column.label === 'Refused' && sum(tool, column.outcomes) > 0 ? (
                  <span className="block text-[11px] text-muted" data-testid="refusal-reasons">
                    {REFUSAL_REASONS.filter(([outcome]) => tool.outcomes[outcome] > 0).map(
                      ([outcome, reason], index) => (
                        <span key={outcome} className="whitespace-nowrap">
                          {index > 0 ? ', ' : ''}
                          {reason} {formatCount(tool.outcomes[outcome])}
                        </span>
                      ),
                    )}
                  </span>
                ) : null}
              </Cell>
            ))}
            <Cell numeric className={wideOnly} data-testid="attempts">
              {formatCount(tool.attempts)}
            </Cell>
            <Cell numeric className={stacked.cell} data-label="Cost" data-testid="cost">
              {formatMicros(tool.costMicros)}
            </Cell>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
