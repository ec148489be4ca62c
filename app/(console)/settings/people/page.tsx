import type { Metadata } from 'next';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { decide, listPeople } from '@holdfast/engine/core';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { PersonForm } from './person-form';
import { SignOutEverywhere } from './sign-out-everywhere';
import { stacked } from '@/components/ui/stacked-rows';

export const metadata: Metadata = { title: 'People' };
export const dynamic = 'force-dynamic';

export default async function PeoplePage() {
  const person = await requirePerson();
  const manage = decide(person, 'people.manage');
  const everyone = await listPeople(getDb());
  return (
    <>
      <PageHeader
        title="People"
        description="Who may use the console, with their role and teams. Holds owned by a team go to its members."
      />
      {manage.allowed ? (
        <div className="mb-4 rounded-lg border border-line bg-surface p-3">
          <PersonForm />
        </div>
      ) : (
        <p className="mb-4 text-[13px] text-muted" data-testid="people-read-only">
          Read only: {manage.reason}.
        </p>
      )}
      <Table data-testid="people-table" className={stacked.table}>
        <caption className="sr-only">People and their roles</caption>
        <thead className={stacked.head}>
          <tr>
            <HeaderCell>Email</HeaderCell>
            <HeaderCell>{manage.allowed ? 'Name, role and teams' : 'Name'}</HeaderCell>
            {manage.allowed ? null : <HeaderCell>Role</HeaderCell>}
            {manage.allowed ? null : <HeaderCell>Teams</HeaderCell>}
            {manage.allowed ? <HeaderCell>Sessions</HeaderCell> : null}
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {everyone.map((row) => (
            <tr key={row.email} data-testid={`person-row-${row.email}`} className={stacked.row}>
              <Cell className={`font-mono text-[12px] [overflow-wrap:anywhere] ${stacked.cell}`} data-label="Email">
                {row.email}
              </Cell>
              {manage.allowed ? (
                <Cell className={stacked.controls}>
                  <PersonForm
                    person={{ email: row.email, displayName: row.displayName, role: row.role, teams: row.teams }}
                    self={row.email === person.id}
                  />
                </Cell>
              ) : (
                <>
                  <Cell className={stacked.cell} data-label="Name">
                    {row.displayName}
                  </Cell>
                  <Cell className={stacked.cell} data-label="Role">
                    {row.role}
                  </Cell>
                  <Cell className={`text-muted ${stacked.cell}`} data-label="Teams">
                    {row.teams.join(', ') || '—'}
                  </Cell>
                </>
              )}
              {manage.allowed ? (
                <Cell className={stacked.controls}>
                  <SignOutEverywhere email={row.email} />
                </Cell>
              ) : null}
            </tr>
          ))}
        </tbody>
      </Table>
    </>
  );
}
