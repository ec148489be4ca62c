import type { AlertKind } from '@holdfast/protocol/enums';

/**
 * Where each alert's runbook is: docs/runbooks/<page>.md in the repository,
 * served by the console at /runbooks/<page>. The page is the alert's kind in
 * kebab-case, for the in-app kinds and the Prometheus rules' `kind` label
 * alike (deploy/prometheus/holdfast.rules.yml), so one name finds it everywhere.
 */
export const RUNBOOKS_PATH = '/runbooks';

/** The Prometheus-only kind: the scrape gone missing (no in-app rule can see that). */
export const prometheusOnlyKinds = ['metrics_absent'] as const;

export type RunbookKind = AlertKind | (typeof prometheusOnlyKinds)[number];

/** `dead_letters_waiting` → `dead-letters-waiting`. */
export const runbookPage = (kind: RunbookKind): string => kind.replaceAll('_', '-');

/** The console path of a kind's runbook, e.g. `/runbooks/stale-lock`. */
export const runbookPath = (kind: RunbookKind): string => `${RUNBOOKS_PATH}/${runbookPage(kind)}`;
