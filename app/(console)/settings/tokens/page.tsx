import type { Metadata } from 'next';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { Moment } from '@/components/ui/time';
import { decide, listApiTokens } from '@holdfast/engine/core';
import { getEnvironment } from '@holdfast/engine/env';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { stacked } from '@/components/ui/stacked-rows';
import { CreateTokenForm } from './create-token-form';
import { RateLimitForm } from './rate-limit-form';
import { RevealedTokensProvider } from './revealed-token';
import { RevokeToken } from './revoke-token';

export const metadata: Metadata = { title: 'API tokens' };
export const dynamic = 'force-dynamic';

/** Focused after a revoke, when the row's button gives way to "revoked". */
const HEADING_ID = 'tokens-title';

export default async function TokensPage() {
  const person = await requirePerson();
  const decision = decide(person, 'api_token.manage');
  const description =
    'Agents call the HTTP API with the header Authorization: Bearer and the token. Scopes: ingest reports attempts and runs steps; read reads figures; metrics lets Prometheus scrape; traces lets an OpenTelemetry exporter send spans.';
  if (!decision.allowed) {
    return (
      <>
        <PageHeader title="API tokens" description={description} />
        <EmptyState title="Only admins manage API tokens" testId="tokens-refused">
          You are signed in as a {person.role}: {decision.reason}.
        </EmptyState>
      </>
    );
  }
  const tokens = await listApiTokens(getDb());
  const env = getEnvironment();
  const defaults = { perSecond: env.HOLDFAST_AGENT_RATE_PER_SECOND, burst: env.HOLDFAST_AGENT_RATE_BURST };
  return (
    <RevealedTokensProvider>
      <PageHeader title="API tokens" description={description} />
      <CreateTokenForm defaults={defaults} />
      <h2 id={HEADING_ID} tabIndex={-1} className="mt-5 mb-2 text-[14px] font-medium">
        Tokens, newest first
      </h2>
      {tokens.length === 0 ? (
        <EmptyState title="No tokens yet">
          Create one for each agent or service, so each can be revoked alone.
        </EmptyState>
      ) : (
        <Table data-testid="tokens-table" className={stacked.table}>
          <caption className="sr-only">API tokens, newest first</caption>
          <thead className={stacked.head}>
            <tr>
              <HeaderCell>Used by</HeaderCell>
              <HeaderCell>Token</HeaderCell>
              <HeaderCell>Scopes</HeaderCell>
              <HeaderCell>Limited to</HeaderCell>
              <HeaderCell>Rate limit</HeaderCell>
              <HeaderCell>Created</HeaderCell>
              <HeaderCell>Last used</HeaderCell>
              <HeaderCell>State</HeaderCell>
            </tr>
          </thead>
          <tbody className={stacked.body}>
            {tokens.map((token) => (
              <tr key={token.id} data-testid={`token-row-${token.name}`} className={stacked.row}>
                <Cell className={`font-medium [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Used by">
                  {token.name}
                </Cell>
                <Cell className={`font-mono text-[12px] ${stacked.cell}`} data-label="Token">
                  {token.prefix}…
                </Cell>
                <Cell className={stacked.cell} data-label="Scopes">
                  {token.scopes.join(', ')}
                </Cell>
                <Cell
                  className={`text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`}
                  data-label="Limited to"
                  data-testid="token-limits"
                >
                  {token.allowedAgents || token.allowedQueues ? (
                    <span>
                      {token.allowedAgents ? (
                        <span className="block">agents: {token.allowedAgents.join(', ')}</span>
                      ) : null}
                      {token.allowedQueues ? (
                        <span className="block">queues: {token.allowedQueues.join(', ')}</span>
                      ) : null}
                    </span>
                  ) : (
                    <span className="text-muted">any agent, any queue</span>
                  )}
                </Cell>
                <Cell className={`text-[12px] ${stacked.cell}`} data-label="Rate limit" data-testid="token-rate-limit">
                  {token.revokedAt ? (
                    <span className="text-muted">
                      {token.ratePerSecond ?? defaults.perSecond}/s, burst {token.rateBurst ?? defaults.burst}
                    </span>
                  ) : (
                    <RateLimitForm
                      tokenId={token.id}
                      name={token.name}
                      ratePerSecond={token.ratePerSecond}
                      rateBurst={token.rateBurst}
                      defaults={defaults}
                    />
                  )}
                </Cell>
                <Cell className={`text-muted ${stacked.cell}`} data-label="Created">
                  <span className="[overflow-wrap:anywhere]">
                    <Moment value={token.createdAt} /> by {token.createdBy}
                  </span>
                </Cell>
                <Cell className={`text-muted ${stacked.cell}`} data-label="Last used">
                  <Moment value={token.lastUsedAt} />
                </Cell>
                <Cell className={stacked.cell} data-label="State">
                  {token.revokedAt ? (
                    <span className="text-muted">
                      revoked <Moment value={token.revokedAt} />
                    </span>
                  ) : (
                    <RevokeToken tokenId={token.id} name={token.name} prefix={token.prefix} headingId={HEADING_ID} />
                  )}
                </Cell>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </RevealedTokensProvider>
  );
}
