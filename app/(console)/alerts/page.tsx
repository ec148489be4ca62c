import type { Metadata } from 'next';
import { PageHeader } from '@/components/ui/page-header';
import { SegmentedLinks } from '@/components/ui/segmented-links';
import { decide } from '@holdfast/engine/core';
import { formatCount } from '@/lib/console/format';
import { countSilencedFiring, listSilences } from '@/lib/queries/alert-silences';
import { getAlertOwners } from '@/lib/queries/alert-owners';
import { countFiringAlerts, getAlertHistory, listAlertChannels, listAlertRules } from '@/lib/queries/alerts';
import { getClock, getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { ChannelForm } from './channel-form';
import { ChannelsTable } from './channels-table';
import { HistorySection } from './history-section';
import { RulesSection } from './rules-section';
import { SilencesSection } from './silences-section';

export const metadata: Metadata = { title: 'Alerts' };
export const dynamic = 'force-dynamic';

// What fires first: on-call lands on it; the rules, read least, last.
const tabs = ['history', 'silences', 'channels', 'rules'] as const;
type Tab = (typeof tabs)[number];

const HISTORY_PAGE = 50;
const HISTORY_MAX = 500;

export default async function AlertsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const manage = decide(person, 'alerts.manage');
  const params = await searchParams;
  const tab: Tab = tabs.find((name) => name === params.tab) ?? 'history';
  const db = getDb();
  const now = getClock()();
  const firing = await countFiringAlerts(db);
  const silenced = firing === 0 ? 0 : await countSilencedFiring(db, now);
  const maySilence = decide(person, 'alert.silence').allowed;
  const requested = Number(params.limit);
  const limit = Number.isInteger(requested) && requested > 0 ? Math.min(requested, HISTORY_MAX) : HISTORY_PAGE;
  // Error texts, status codes and durations for admins only: they would map the network for anyone.
  const history = tab === 'history' ? await getAlertHistory(db, { limit, detail: manage.allowed, now }) : null;

  return (
    <>
      <PageHeader
        title="Alerts"
        description="Holdfast tells on-call before they look: rules say when an alert fires, channels where it goes (a signed webhook or Slack), the history shows every notification and its delivery, and silences keep planned or known trouble quiet for a while."
      />
      <div className="mb-4 flex flex-wrap items-center gap-3">
        {/* On a phone the three choices may be wider than the page: they scroll in their own box. */}
        <div className="max-w-full overflow-x-auto [&_a]:whitespace-nowrap">
          <SegmentedLinks
            label="Alerts sections"
            links={tabs.map((name) => ({
              href: `/alerts?tab=${name}`,
              label:
                name === 'history'
                  ? firing > 0
                    ? `Firing (${formatCount(firing)}) and history`
                    : 'Firing and history'
                  : capitalize(name),
              active: name === tab,
            }))}
          />
        </div>
        <span className="text-[12px] text-muted" data-testid="firing-count">
          {firing === 0
            ? 'Nothing firing now.'
            : `${formatCount(firing)} firing now${silenced > 0 ? `, ${formatCount(silenced)} of them silenced` : ''}.`}
        </span>
      </div>
      {tab === 'rules' ? (
        <RulesSection
          rules={await listAlertRules(db)}
          manage={manage.allowed}
          readOnlyReason={manage.allowed ? undefined : `you are signed in as a ${person.role}`}
        />
      ) : tab === 'channels' ? (
        <section aria-labelledby="channels-title">
          <h2 id="channels-title" tabIndex={-1} className="mb-2 text-[14px] font-medium">
            Channels
          </h2>
          {manage.allowed ? (
            <ChannelForm />
          ) : (
            <p className="mb-3 text-[13px] text-muted" data-testid="channels-read-only">
              Read only: admins add, test and delete channels (you are signed in as a {person.role}).
            </p>
          )}
          <ChannelsTable
            channels={await listAlertChannels(db, { detail: manage.allowed })}
            manage={manage.allowed}
            headingId="channels-title"
          />
          <p className="mt-3 max-w-prose text-[12px] text-muted">
            A channel with a team gets only that team&apos;s alerts (holds it owns, and alerts about the steps it owns);
            one without gets every alert. A receiver that refuses a delivery for good (a 4xx other than 408 or 429)
            marks its channel failing until a delivery succeeds; other failures are retried with backoff.
          </p>
        </section>
      ) : tab === 'silences' ? (
        <SilencesSection
          silences={await listSilences(db, { now })}
          now={now}
          maySilence={maySilence}
          readOnlyReason={`you are signed in as a ${person.role}`}
          prefill={{ kind: text(params.kind), identityPattern: text(params.subject), team: text(params.team) }}
        />
      ) : history === null ? null : (
        <HistorySection
          history={history}
          owners={await getAlertOwners(db, history.instances)}
          now={now}
          mayAcknowledge={decide(person, 'alert.acknowledge').allowed}
          maySilence={maySilence}
          moreHref={limit < HISTORY_MAX ? `/alerts?tab=history&limit=${Math.min(limit * 4, HISTORY_MAX)}` : undefined}
        />
      )}
    </>
  );
}

/** A search parameter as one bounded text (the form's own validation says what is wrong with it). */
const text = (value: string | string[] | undefined) => (typeof value === 'string' ? value.slice(0, 300) : undefined);

const capitalize = (text: string) => `${text[0]?.toUpperCase()}${text.slice(1)}`;
