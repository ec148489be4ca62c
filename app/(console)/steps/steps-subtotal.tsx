import Link from 'next/link';
import { formatCount, formatMicros, formatPercent } from '@/lib/console/format';
import type { StepsView } from '@/lib/filters/steps';
import type { StepsSubtotal } from '@/lib/queries/steps-page';
import { agentHref } from '../agents/agent-href';

/**
 * What the matching steps add up to, on every page of them: with an agent chosen, that agent's subtotal (and its
 * page); with an owner, a team's; with nothing chosen, the fleet's.
 */
export function StepsSubtotalLine({ subtotal, view }: { subtotal: StepsSubtotal; view: StepsView }) {
  const filtered = Boolean(view.agent || view.owner || view.search || view.source || view.cost);
  const retryShare = subtotal.totalSpendMicros > 0 ? subtotal.retrySpendMicros / subtotal.totalSpendMicros : 0;
  return (
    <p className="mb-2 text-[13px]" data-testid="steps-subtotal">
      <span className="text-muted">
        {subtotal.steps === 1
          ? filtered
            ? 'This step: '
            : 'The one step: '
          : `${filtered ? 'These' : 'All'} ${formatCount(subtotal.steps)} steps: `}
      </span>
      <span data-testid="subtotal-attempts">{formatCount(subtotal.attempts)} attempts</span>,{' '}
      <span data-testid="subtotal-retries">{formatCount(subtotal.retries)} retries</span>, spend{' '}
      <span data-testid="subtotal-spend">{formatMicros(subtotal.totalSpendMicros)}</span>, retry spend{' '}
      <span data-testid="subtotal-retry-spend">{formatMicros(subtotal.retrySpendMicros)}</span> (
      {formatPercent(retryShare)} of spend)
      {view.agent ? (
        <>
          {' · '}
          <Link
            href={agentHref(view.agent, view.window === 'custom' ? '24h' : view.window)}
            className="text-accent hover:underline"
          >
            {view.agent}&rsquo;s page
          </Link>
        </>
      ) : null}
    </p>
  );
}
