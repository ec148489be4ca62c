import type { Metadata } from 'next';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { decide, listApiTokens } from '@/lib/core';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { revokeTokenAction } from './actions';
import { CreateTokenForm } from './create-token-form';

export const metadata: Metadata = { title: 'API tokens' };
export const dynamic = 'force-dynamic';

const when = (date: Date | null) => (date ? `${date.toISOString().replace('T', ' ').slice(0, 16)} UTC` : '—');

export default async function TokensPage() {
  const person = await requirePerson();
  const decision = decide(person, 'api_token.manage');
  const description =
    'Agents call the HTTP API with `Authorization: Bearer <token>`. ingest reports attempts; read reads figures.';
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
  return (
    <>
      <PageHeader title="API tokens" description={description} />
      <CreateTokenForm />
      <div className="mt-5">
        {tokens.length === 0 ? (
          <EmptyState title="No tokens yet">
            Create one for each agent or service, so each can be revoked alone.
          </EmptyState>
        ) : (
          <Table data-testid="tokens-table">
            <caption className="sr-only">API tokens, newest first</caption>
            <thead>
              <tr>
                <HeaderCell>Used by</HeaderCell>
                <HeaderCell>Token</HeaderCell>
                <HeaderCell>Scopes</HeaderCell>
                <HeaderCell>Limited to</HeaderCell>
                <HeaderCell>Created</HeaderCell>
                <HeaderCell>Last used</HeaderCell>
                <HeaderCell>State</HeaderCell>
              </tr>
            </thead>
            <tbody>
              {tokens.map((token) => (
                <tr key={token.id} data-testid={`token-row-${token.name}`}>
                  <Cell>{token.name}</Cell>
                  <Cell className="font-mono text-[12px]">{token.prefix}…</Cell>
                  <Cell>{token.scopes.join(', ')}</Cell>
                  <Cell className="text-[12px]" data-testid="token-limits">
                    {token.allowedAgents || token.allowedQueues ? (
                      <>
                        {token.allowedAgents ? <div>agents: {token.allowedAgents.join(', ')}</div> : null}
                        {token.allowedQueues ? <div>queues: {token.allowedQueues.join(', ')}</div> : null}
                      </>
                    ) : (
                      <span className="text-muted">any agent, any queue</span>
                    )}
                  </Cell>
                  <Cell className="text-muted">
                    {when(token.createdAt)} by {token.createdBy}
                  </Cell>
                  <Cell className="text-muted">{when(token.lastUsedAt)}</Cell>
                  <Cell>
                    {token.revokedAt ? (
                      <span className="text-muted">revoked {when(token.revokedAt)}</span>
                    ) : (
                      <form action={revokeTokenAction}>
                        <input type="hidden" name="tokenId" value={token.id} />
                        <Button type="submit" variant="danger-link" className="text-[12px]">
                          Revoke
                        </Button>
                      </form>
                    )}
                  </Cell>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </div>
    </>
  );
}
