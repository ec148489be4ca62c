import { formatCount, formatMicros, formatPercent } from '@/lib/console/format';
import type { AgentRow } from '@/lib/queries/agents-page';

/** The fleet's sums over the window, above its agents: what they cost together, and how much of it went to retries. */
export function FleetTotal({ agents }: { agents: AgentRow[] }) {
  const sum = (figure: (row: AgentRow) => number) => agents.reduce((total, row) => total + figure(row), 0);
  const attempts = sum((row) => row.attempts);
  const spend = sum((row) => row.totalSpendMicros);
  const retrySpend = sum((row) => row.retrySpendMicros);
  return (
    <p className="mb-3 text-[13px]" data-testid="fleet-total">
      {formatCount(agents.length)} agent{agents.length === 1 ? '' : 's'}: {formatCount(attempts)} attempts,{' '}
      {formatMicros(spend)} spent, <strong>{formatMicros(retrySpend)} on retries</strong> (
      {formatPercent(spend === 0 ? 0 : retrySpend / spend)} of the spend).
    </p>
  );
}
