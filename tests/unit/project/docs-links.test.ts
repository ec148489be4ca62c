import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { webhookBody, slackBody, type AlertMessage } from '../../../packages/engine/src/alerts/messages';
import { prometheusOnlyKinds, runbookPage } from '../../../packages/engine/src/alerts/runbooks';
import { githubSlug } from '../../../lib/console/heading-anchor';
import { alertKinds } from '@holdfast/protocol/enums';

/**
 * The docs hold together: every relative link in README.md and docs/ reaches
 * a file that exists, every `#anchor` a heading of its page (GitHub's slugs),
 * every alert kind and every Prometheus rule has a runbook, and every link to
 * a runbook (the rules' runbook_url, the notifications') names an existing page.
 */

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(file);
    return entry.name.endsWith('.md') ? [file] : [];
  });
}

const docs = ['README.md', ...markdownFiles('docs')];

/** The text outside fenced code blocks, line by line (links and headings in code are not links or headings). */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
    } else if (opener) fence = opener;
    else lines.push({ line: index + 1, text });
  });
  return lines;
}

/** Every heading's GitHub anchor on a page, and the explicit `id`/`name` anchors of any HTML in it. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) anchors.add(githubSlug(heading[1]!, seen));
    for (const html of text.matchAll(/<a\s[^>]*(?:name|id)="([^"]+)"/g)) anchors.add(html[1]!);
  }
  return anchors;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

/** Inline links and images (`[text](target "title")`) and reference definitions (`[name]: target`), outside code. */
function linksOf(file: string): Link[] {
  const links: Link[] = [];
  for (const { line, text } of proseLines(read(file))) {
    const prose = text.replace(/(`+)(?:(?!\1).)+\1/g, '');
    for (const match of prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ file, line, target: match[1]!.replace(/^<|>$/g, '') });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s+(\S+)/.exec(prose);
    if (definition) links.push({ file, line, target: definition[1]! });
  }
  return links;
}

/** Why a link does not resolve, or undefined when it does. Web addresses are not followed. */
function brokenBecause(link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined;
  if (link.target.startsWith('/'))
    return 'an absolute path: GitHub resolves it outside the repository, use a relative one';
  const [rawPath = '', rawAnchor] = link.target.split('#', 2);
  const targetFile =
    rawPath === ''
      ? link.file
      : path.posix.normalize(path.posix.join(path.posix.dirname(link.file), decodeURI(rawPath)));
  if (targetFile.startsWith('..')) return 'leaves the repository';
  if (!fs.existsSync(path.join(root, targetFile))) return `${targetFile} does not exist`;
  if (rawAnchor === undefined || !targetFile.endsWith('.md')) return undefined;
  const anchor = decodeURIComponent(rawAnchor);
  if (anchorsOf(read(targetFile)).has(anchor)) return undefined;
  return `${targetFile} has no heading with the anchor #${anchor}`;
}

const RUNBOOK_BASE = 'https://holdfast.example.com/runbooks/';
const runbookFile = (page: string) => `docs/runbooks/${page}.md`;

/** Each alert of the rules file with its `kind` label and `runbook_url` annotation (a line-based read: the file is plain). */
function prometheusAlerts(): { alert: string; kind?: string; runbookUrl?: string }[] {
  const alerts: { alert: string; kind?: string; runbookUrl?: string }[] = [];
  for (const line of read('deploy/prometheus/holdfast.rules.yml').split('\n')) {
    const alert = /^\s+- alert:\s+(\S+)/.exec(line)?.[1];
    if (alert) alerts.push({ alert });
    const current = alerts.at(-1);
    if (!current) continue;
    const kind = /^\s+kind:\s+(\S+)/.exec(line)?.[1];
    if (kind) current.kind = kind;
    const url = /^\s+runbook_url:\s+"?([^"\s]+)"?/.exec(line)?.[1];
    if (url) current.runbookUrl = url;
  }
  return alerts;
}

describe('the GitHub anchor slug', () => {
  it('is lower case, drops punctuation and code marks, and numbers repeats', () => {
    expect(githubSlug('A read replica for the console')).toBe('a-read-replica-for-the-console');
    expect(githubSlug('`GET /metrics`')).toBe('get-metrics');
    expect(githubSlug('Recording (`npm run bench:core`)')).toBe('recording-npm-run-benchcore');
    expect(githubSlug('People, roles and sign-in')).toBe('people-roles-and-sign-in');
    expect(githubSlug('snake_case stays')).toBe('snake_case-stays');
    const seen = new Map<string, number>();
    expect([githubSlug('Set up', seen), githubSlug('Set up', seen), githubSlug('Set up', seen)]).toEqual([
      'set-up',
      'set-up-1',
      'set-up-2',
    ]);
  });

  it('is how this test finds links: one in code is none, a broken one is named', () => {
    const links = linksOf('docs/runbooks/README.md');
    expect(links.some((link) => link.target === 'stale-lock.md')).toBe(true);
    expect(
      brokenBecause({ file: 'docs/runbooks/README.md', line: 1, target: 'stale-lock.md#what-it-means' }),
    ).toBeUndefined();
    expect(brokenBecause({ file: 'docs/runbooks/README.md', line: 1, target: 'stale-lock.md#no-such' })).toMatch(
      /no heading/,
    );
    expect(brokenBecause({ file: 'docs/runbooks/README.md', line: 1, target: 'missing.md' })).toMatch(/does not exist/);
    expect(brokenBecause({ file: 'README.md', line: 1, target: '/docs' })).toMatch(/absolute/);
  });
});

describe('links in README.md and docs/', () => {
  it('finds the docs', () => {
    expect(docs).toContain('docs/runbooks/README.md');
    expect(docs.length).toBeGreaterThan(9);
  });

  it('resolve: every relative link reaches a file, every anchor a heading', () => {
    const broken = docs
      .flatMap(linksOf)
      .map((link) => ({ link, why: brokenBecause(link) }))
      .filter(({ why }) => why !== undefined)
      .map(({ link, why }) => `${link.file}:${link.line} (${link.target}): ${why}`);
    expect(broken).toEqual([]);
  });

  it('every page starts with a # title', () => {
    const untitled = docs.filter((file) => !/^# \S/.test(read(file)));
    expect(untitled).toEqual([]);
  });
});

describe('runbooks', () => {
  it('one page for every in-app alert kind and every Prometheus-only kind', () => {
    for (const kind of [...alertKinds, ...prometheusOnlyKinds]) {
      expect(fs.existsSync(path.join(root, runbookFile(runbookPage(kind)))), `no runbook for ${kind}`).toBe(true);
    }
  });

  it("every Prometheus rule has a runbook_url at its kind's page, and the page exists", () => {
    const alerts = prometheusAlerts();
    expect(alerts.length).toBeGreaterThanOrEqual(alertKinds.length + prometheusOnlyKinds.length);
    for (const alert of alerts) {
      expect(alert.kind, `${alert.alert} has no kind label`).toBeDefined();
      expect(alert.runbookUrl, `${alert.alert} has no runbook_url`).toBe(
        `${RUNBOOK_BASE}${runbookPage(alert.kind as never)}`,
      );
      const page = alert.runbookUrl!.slice(RUNBOOK_BASE.length);
      expect(fs.existsSync(path.join(root, runbookFile(page))), `${alert.alert}: ${runbookFile(page)}`).toBe(true);
    }
  });

  it('every runbook is in the index, and each names the console pages that exist', () => {
    const index = linksOf('docs/runbooks/README.md').map((link) => link.target);
    const consoleAreas = new Set([
      ...fs.readdirSync(path.join(root, 'app/(console)')),
      ...fs.readdirSync(path.join(root, 'app')),
    ]);
    for (const file of markdownFiles('docs/runbooks').filter((each) => !each.endsWith('README.md'))) {
      expect(index, `${file} is not in docs/runbooks/README.md`).toContain(path.posix.basename(file));
      for (const match of read(file).matchAll(/`(\/[a-z-]*)[^`]*`/g)) {
        const area = match[1]!.slice(1);
        if (area === '') continue;
        expect(consoleAreas.has(area), `${file}: no console route /${area}`).toBe(true);
      }
    }
  });

  it('every notification of an in-app alert links to its runbook: the webhook body and a Slack button', () => {
    const publicUrl = 'https://holdfast.example.com/ops/';
    for (const kind of alertKinds) {
      const message: AlertMessage = {
        eventId: 'e-1',
        event: 'fired',
        kind,
        identity: 'x',
        title: 'title',
        detail: 'detail',
        link: '/',
        team: null,
        count: 1,
        firedAt: new Date('2026-11-30T12:00:00Z'),
        resolvedAt: null,
      };
      const url = `https://holdfast.example.com/ops/runbooks/${runbookPage(kind)}`;
      expect(webhookBody(message, publicUrl).runbook_url).toBe(url);
      expect(JSON.stringify(slackBody(message, publicUrl))).toContain(`"url":"${url}"`);
      expect(fs.existsSync(path.join(root, runbookFile(runbookPage(kind))))).toBe(true);
    }
    const test: AlertMessage = {
      ...({} as AlertMessage),
      eventId: 'e-2',
      event: 'test',
      kind: null,
      title: 't',
      detail: 'd',
      link: '/alerts',
      team: null,
      identity: null,
      count: 1,
      firedAt: new Date(),
      resolvedAt: null,
    };
    expect(webhookBody(test, publicUrl).runbook_url).toBeNull();
    expect(JSON.stringify(slackBody(test, publicUrl))).not.toContain('/runbooks/');
  });
});
