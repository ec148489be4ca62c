import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { alertKinds } from '@holdfast/protocol/enums';
import { metricCatalog } from '../../../packages/engine/src/metrics/catalog';

/**
 * The ready files in deploy/ name only metrics GET /metrics exports (the
 * catalog), every in-app alert kind has a Prometheus rule with its labels and
 * annotations, every alert has unit tests that make it fire and keep it quiet,
 * and the Grafana dashboard imports cleanly. promtool itself checks the files
 * in `.ci/run` (scripts/ci/promtool-checks.ts); this test needs no promtool.
 */

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

type Yaml = string | Yaml[] | { [key: string]: Yaml };
type YamlMap = { [key: string]: Yaml };

/** A deploy file read by the yaml package, every scalar as its text (the checks below compare words). */
function parseYaml(text: string): Yaml {
  const asYaml = (value: unknown): Yaml => {
    if (Array.isArray(value)) return value.map(asYaml);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, asYaml(inner)]));
    return value === null || value === undefined ? '' : String(value).trim();
  };
  return asYaml(parse(text));
}

const asMap = (yaml: Yaml | undefined): YamlMap =>
  yaml && typeof yaml === 'object' && !Array.isArray(yaml) ? yaml : ({} as YamlMap);
const asList = (yaml: Yaml | undefined): Yaml[] => (Array.isArray(yaml) ? yaml : []);
const asText = (yaml: Yaml | undefined): string => (typeof yaml === 'string' ? yaml : '');

const promqlWords = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless']);
const promqlWordsToo = new Set([...promqlWords, 'offset', 'bool', 'inf', 'nan', 'start', 'end']);

/** The metric names a PromQL expression selects (not functions, keywords, labels or durations). */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(new RegExp(`\\b(?:${[...promqlWords].join('|')})\\s*\\([^)]*\\)`, 'g'), ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w.:$])([a-zA-Z_:][\w:]*)(?![\w:]|\s*\()/g)) {
    if (!promqlWordsToo.has(match[1]!)) names.add(match[1]!);
  }
  return [...names];
}

const catalogNames = new Set(Object.keys(metricCatalog));

const rulesFile = asMap(parseYaml(read('deploy/prometheus/holdfast.rules.yml')));
const groups = asList(rulesFile.groups).map(asMap);
const rules = groups.flatMap((group) => asList(group.rules).map(asMap));
const alerts = rules.filter((rule) => rule.alert);
const recorded = new Set(rules.filter((rule) => rule.record).map((rule) => asText(rule.record)));

const testFile = asMap(parseYaml(read('deploy/prometheus/holdfast.rules.test.yml')));
const unitTests = asList(testFile.tests).map(asMap);

const dashboard = JSON.parse(read('deploy/grafana/holdfast.json')) as {
  schemaVersion: number;
  uid: string;
  __inputs: { name: string; type: string; pluginId: string }[];
  panels: { id: number; type: string; title: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
  templating: { list: { name: string; query: { query: string } }[] };
};
const dashboardExprs = [
  ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
  // label_values(<selector>, <label>): the selector is PromQL, the label is not.
  ...dashboard.templating.list.map((variable) => variable.query.query.replace(/^label_values\((.*),\s*\w+\)$/, '$1')),
];

describe('the parsers this test relies on', () => {
  it('reads the metric names of a PromQL expression, not its functions, labels or durations', () => {
    expect(
      metricNames(
        'sum by (agent, step) (rate(holdfast_retries_total{step=~"$step", x="a b"}[5m] offset 1h)) / on (agent) ' +
          'agent_step:share:rate1h * 1e6 > 15 * 60 and on () count(holdfast_slot_locks_stale offset 10m) > 0 ' +
          'or time() - holdfast_sweep_last_success_timestamp_seconds > bool 2',
      ).sort(),
    ).toEqual([
      'agent_step:share:rate1h',
      'holdfast_retries_total',
      'holdfast_slot_locks_stale',
      'holdfast_sweep_last_success_timestamp_seconds',
    ]);
  });

  it('reads the rule files: groups, rules, block and folded scalars', () => {
    expect(groups.length).toBeGreaterThanOrEqual(3);
    expect(alerts.length).toBeGreaterThanOrEqual(alertKinds.length);
    expect(recorded.size).toBeGreaterThanOrEqual(4);
    for (const rule of rules) expect(asText(rule.expr).trim(), JSON.stringify(rule)).not.toBe('');
    expect(unitTests.length).toBeGreaterThanOrEqual(alertKinds.length);
  });
});

describe('deploy/prometheus/holdfast.rules.yml', () => {
  it('uses only metrics in the catalog, and recording rules it defines', () => {
    for (const rule of rules) {
      for (const name of metricNames(asText(rule.expr))) {
        const known = catalogNames.has(name) || recorded.has(name);
        expect(known, `${asText(rule.alert ?? rule.record)} uses ${name}`).toBe(true);
      }
    }
  });

  it('names recording rules level:metric:operations, and records nothing the catalog exports', () => {
    for (const name of recorded) {
      expect(name).toMatch(/^[a-z_]+:holdfast_[a-z_0-9]+:[a-z_0-9]+$/);
      expect(catalogNames.has(name)).toBe(false);
    }
  });

  it('has a rule for every alert kind the issue lists (the in-app kinds)', () => {
    const kinds = new Set(alerts.map((alert) => asText(asMap(alert.labels).kind)));
    for (const kind of alertKinds) expect(kinds.has(kind), `no alert with kind ${kind}`).toBe(true);
  });

  it('gives every alert a wait, a severity, a summary, a description, a console path and a dashboard panel', () => {
    const panelIds = new Set(dashboard.panels.map((panel) => panel.id));
    for (const alert of alerts) {
      const name = asText(alert.alert);
      const labels = asMap(alert.labels);
      const annotations = asMap(alert.annotations);
      expect(asText(alert.for), name).toMatch(/^\d+[smhd]$/);
      expect(['critical', 'warning'], name).toContain(asText(labels.severity));
      expect(asText(labels.kind), name).not.toBe('');
      expect(asText(annotations.summary), name).not.toBe('');
      expect(asText(annotations.description), name).not.toBe('');
      expect(asText(annotations.console_path), name).toMatch(/^\//);
      const dashboardPath = asText(annotations.dashboard_path);
      expect(dashboardPath, name).toMatch(new RegExp(`^/d/${dashboard.uid}/`));
      const panel = /viewPanel=(\d+)/.exec(dashboardPath)?.[1];
      if (panel) expect(panelIds.has(Number(panel)), `${name}: no panel ${panel}`).toBe(true);
    }
  });
});

describe('deploy/prometheus/holdfast.rules.test.yml', () => {
  it('loads the rules beside it', () => {
    expect(asList(testFile.rule_files)).toEqual(['holdfast.rules.yml']);
  });

  it('feeds only catalog metrics in, and queries only catalog metrics and recording rules', () => {
    for (const test of unitTests) {
      for (const input of asList(test.input_series).map(asMap)) {
        const [name] = metricNames(asText(input.series));
        expect(catalogNames.has(name ?? ''), `${asText(test.name)}: input ${asText(input.series)}`).toBe(true);
      }
      for (const check of asList(test.promql_expr_test).map(asMap)) {
        for (const name of metricNames(asText(check.expr))) {
          expect(catalogNames.has(name) || recorded.has(name), `${asText(test.name)}: ${name}`).toBe(true);
        }
      }
    }
  });

  it('makes every alert fire, with its labels and annotations, and keeps it quiet where it must', () => {
    const checks = unitTests.flatMap((test) => asList(test.alert_rule_test).map(asMap));
    for (const alert of alerts) {
      const name = asText(alert.alert);
      const own = checks.filter((check) => asText(check.alertname) === name);
      const firing = own.flatMap((check) => asList(check.exp_alerts).map(asMap));
      expect(firing.length, `${name} never fires in a test`).toBeGreaterThan(0);
      expect(
        own.some((check) => asList(check.exp_alerts).length === 0),
        `${name} is never tested quiet`,
      ).toBe(true);
      for (const expected of firing) {
        expect(asMap(expected.exp_labels).kind, name).toBe(asMap(alert.labels).kind);
        expect(asMap(expected.exp_labels).severity, name).toBe(asMap(alert.labels).severity);
        expect(Object.keys(asMap(expected.exp_annotations)).sort(), name).toEqual(
          Object.keys(asMap(alert.annotations)).sort(),
        );
      }
    }
    const alertNames = new Set(alerts.map((alert) => asText(alert.alert)));
    for (const check of checks) expect(alertNames.has(asText(check.alertname))).toBe(true);
  });
});

describe('deploy/grafana/holdfast.json', () => {
  it('imports with a Prometheus data source input', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', pluginId: 'prometheus' })]);
    for (const panel of dashboard.panels.filter((panel) => panel.type !== 'row')) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's import placeholder, literally ${DS_PROMETHEUS}.
      expect(panel.datasource?.uid, panel.title).toBe('${DS_PROMETHEUS}');
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses only metrics in the catalog, and every one of them', () => {
    const used = new Set(dashboardExprs.flatMap(metricNames));
    for (const name of used) expect(catalogNames.has(name), `the dashboard uses ${name}`).toBe(true);
    for (const name of catalogNames) expect(used.has(name), `no panel shows ${name}`).toBe(true);
  });
});
