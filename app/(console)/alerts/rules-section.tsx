import Link from 'next/link';
import { Moment } from '@/components/ui/time';
import { runbookPath } from '@holdfast/engine/alerts';
import { formatCount } from '@/lib/console/format';
import type { AlertRule } from '@holdfast/engine/db/schema';
import { alertKindLabels, thresholdField, thresholdNames } from './alert-labels';
import { RuleForm } from './rule-form';

/** Every rule with what it means; admins edit each in place, everyone else reads its values. */
export function RulesSection({
  rules,
  manage,
  readOnlyReason,
}: {
  rules: AlertRule[];
  manage: boolean;
  readOnlyReason?: string;
}) {
  return (
    <section aria-labelledby="rules-title">
      <h2 id="rules-title" className="sr-only">
        Rules
      </h2>
      {manage ? null : (
        <p className="mb-3 text-[13px] text-muted" data-testid="rules-read-only">
          Read only: admins change these{readOnlyReason ? ` (${readOnlyReason})` : ''}.
        </p>
      )}
      <ul className="grid grid-cols-1 gap-3 xl:grid-cols-2">
        {rules.map((rule) => {
          const { title, meaning } = alertKindLabels[rule.kind];
          const names = thresholdNames(rule.thresholds);
          return (
            <li
              key={rule.kind}
              className="min-w-0 rounded-lg border border-line bg-surface p-4 [overflow-wrap:anywhere]"
              data-testid={`rule-${rule.kind}`}
            >
              <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
                <h3 className="text-[14px] font-medium">{title}</h3>
                <span
                  className={rule.enabled ? 'text-[12px] font-medium text-ok' : 'text-[12px] font-medium text-muted'}
                  data-testid="rule-state"
                >
                  {rule.enabled ? 'on' : 'off'}
                </span>
              </div>
              <p className="mt-0.5 text-[13px] text-muted">{meaning}</p>
              <Link
                href={runbookPath(rule.kind)}
                className="text-[12px] text-accent hover:underline"
                data-testid="rule-runbook"
                aria-label={`Runbook: ${title}`}
              >
                Runbook: what to do →
              </Link>
              {manage ? (
                <RuleForm kind={rule.kind} enabled={rule.enabled} thresholds={rule.thresholds} />
              ) : names.length > 0 ? (
                <dl className="mt-3 grid grid-cols-1 gap-x-4 gap-y-1 text-[13px] sm:grid-cols-[auto_1fr]">
                  {names.map((name) => {
                    const spec = thresholdField(name);
                    return (
                      <div key={name} className="contents" data-testid={`rule-value-${name}`}>
                        <dt className="text-muted">{spec.label}</dt>
                        <dd className="tabular-nums">
                          {formatCount(rule.thresholds[name] ?? 0)} {spec.unit}
                        </dd>
                      </div>
                    );
                  })}
                </dl>
              ) : (
                <p className="mt-3 text-[12px] text-muted">No thresholds: it fires on the event itself.</p>
              )}
              <p className="mt-3 text-[11px] text-muted">
                Changed <Moment value={rule.updatedAt} /> by {rule.updatedBy}
              </p>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
