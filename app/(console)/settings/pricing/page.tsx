import type { Metadata } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { PageHeader } from '@/components/ui/page-header';
import { decide } from '@holdfast/engine/core';
import { readPricingSettings } from '@/lib/queries/pricing-settings';
import { getDb } from '@/lib/server/db';
import { requirePerson } from '@/lib/server/session';
import { DEFAULT_ERROR_CLASS_RULES } from '@holdfast/engine/traces';
import { ErrorRulesEditor } from './error-rules-editor';
import { ErrorRulesTable } from './error-rules-table';
import { OverrideForm } from './override-form';
import { OverridesTable } from './overrides-table';
import { statusList } from './pricing-format';
import { toRuleInput } from './rule-edits';
import { StatusesForm } from './statuses-form';

export const metadata: Metadata = { title: 'Costs and errors' };
export const dynamic = 'force-dynamic';

const one = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

export default async function PricingPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const person = await requirePerson();
  const manage = decide(person, 'pricing.manage');
  // The primary: an edit of the rules is based on the fingerprint read here.
  const settings = await readPricingSettings(getDb());
  const params = await searchParams;
  const editProvider = one(params.provider) ?? '';
  const editModel = one(params.model);
  const editing = manage.allowed
    ? settings.overrides.find((row) => row.provider === editProvider && row.model === editModel)
    : undefined;
  const rules = settings.errorClassRules.map(toRuleInput);

  return (
    <>
      <PageHeader
        title="Costs and errors"
        description="How Holdfast prices a model call that reports tokens instead of a cost, and how it classes the error of a failed OpenTelemetry span. Changes apply to attempts recorded from then on."
      />
      {manage.allowed ? null : (
        <p className="mb-4 text-[13px] text-muted" data-testid="pricing-read-only">
          Read only: {manage.reason}. You are signed in as a {person.role}; ask an admin to change prices or rules.
        </p>
      )}

      <Section id="overrides" title="Price overrides" audit="/audit?targetType=price_override">
        <Explained>
          Negotiated prices, in USD per million tokens. An override wins over the bundled price table
          (@pydantic/genai-prices) for attempts priced from now on; attempts already stored keep their cost. Priced
          costs are estimates of what the provider bills.
        </Explained>
        <OverridesTable
          overrides={settings.overrides}
          manage={manage.allowed}
          editing={editing}
          headingId="overrides-title"
        />
        {manage.allowed ? (
          <OverrideForm
            key={editing ? `${editing.provider}/${editing.model}` : 'new'}
            override={
              editing && {
                provider: editing.provider,
                model: editing.model,
                inputPerMillion: String(editing.inputPerMillion),
                outputPerMillion: String(editing.outputPerMillion),
                cacheReadPerMillion: editing.cacheReadPerMillion === null ? '' : String(editing.cacheReadPerMillion),
                cacheWritePerMillion: editing.cacheWritePerMillion === null ? '' : String(editing.cacheWritePerMillion),
                reason: '',
              }
            }
          />
        ) : null}
      </Section>

      <Section id="failed-calls" title="Failed-call rule" audit="/audit?targetId=refused_call_statuses">
        <Explained>
          A model call that fails with one of these HTTP statuses was refused before the model generated anything: it
          costs 0 (cost source &ldquo;rule&rdquo;), whatever tokens the client counted. A rate limit without a status
          also costs 0; a failure with another status (a 5xx, a timeout, a stream cut short) is charged for the tokens
          it reports.
        </Explained>
        {manage.allowed ? (
          <StatusesForm statuses={statusList(settings.refusedStatuses)} />
        ) : (
          <p className="text-[13px]" data-testid="refused-statuses">
            Refused statuses:{' '}
            {settings.refusedStatuses.length > 0 ? (
              <span className="font-mono text-[12px]">{statusList(settings.refusedStatuses)}</span>
            ) : (
              <span className="text-muted">none (every failure is charged for the tokens it reports)</span>
            )}
          </p>
        )}
      </Section>

      <Section id="error-rules" title="Error classes for spans" audit="/audit?targetId=error_class_rules">
        <Explained>
          A failed span from OpenTelemetry ingest takes the class of the first rule that matches, top to bottom. Its
          status is <code>http.response.status_code</code> (else an <code>error.type</code> that is a status number);
          words match anywhere in <code>error.type</code>, ignoring case. A failure no rule matches is{' '}
          <code>unknown</code>, which is not retried. Spans ingested from now on are classed by these rules; attempts
          already stored keep their class.
        </Explained>
        {manage.allowed ? (
          <ErrorRulesEditor
            rules={rules}
            basedOn={settings.errorClassRulesFingerprint}
            defaultCount={DEFAULT_ERROR_CLASS_RULES.length}
            headingId="error-rules-title"
          />
        ) : (
          <ErrorRulesTable rules={rules} />
        )}
      </Section>
    </>
  );
}

function Section({ id, title, audit, children }: { id: string; title: string; audit: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-title`} className="mb-8 min-w-0">
      <div className="mb-1 flex flex-wrap items-baseline justify-between gap-x-3">
        {/* Focusable: it takes focus when an action takes away the control that had it. */}
        <h2 id={`${id}-title`} tabIndex={-1} className="text-[15px] font-medium">
          {title}
        </h2>
        <Link href={audit} className="text-[12px] text-accent hover:underline">
          Changes in the audit log<span className="sr-only">: {title}</span>
        </Link>
      </div>
      {children}
    </section>
  );
}

function Explained({ children }: { children: ReactNode }) {
  return <p className="mb-3 max-w-prose text-[13px] text-muted">{children}</p>;
}
