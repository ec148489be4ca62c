/**
 * Writes docs/operations/configuration.md from packages/engine/src/env.ts: every variable the
 * schema reads, in its order, with its default (what the schema gives an
 * empty environment) and its meaning (the variable's `.describe()`), then the
 * few variables scripts and tests read themselves. `npm run docs:config`;
 * tests/unit/project/configuration-docs.test.ts fails when the committed file differs.
 *
 * The tables are padded as Biome formats Markdown, so the file stays as
 * written under `biome format`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { environmentSchema } from '@holdfast/engine/env';

export const CONFIGURATION_DOC = 'docs/operations/configuration.md';

/** Variables read outside packages/engine/src/env.ts: by one script or by the tests, never by the server's schema. */
export const variablesReadElsewhere = [
  {
    name: 'HOLDFAST_API_URL',
    default: 'unset',
    meaning:
      '`npm run fleet` only: the running Holdfast the research agent calls and (on 127.0.0.1) the briefing agent exports spans to.',
    readBy: 'scripts/fleet.ts',
  },
  {
    name: 'HOLDFAST_POSTGRES_LOG',
    default: 'unset',
    meaning: "`1` prints the embedded PostgreSQL's log.",
    readBy: 'scripts/start.ts',
  },
  {
    name: 'HOLDFAST_RUNTIME_FILE',
    default: 'unset',
    meaning: 'If set, `npm start` writes the database URL and port there as JSON (the browser tests use it).',
    readBy: 'scripts/start.ts',
  },
  {
    name: 'TEST_DATABASE_URL',
    default: 'unset',
    meaning:
      'Tests only: run the integration suite against this (fresh) database on any PostgreSQL 15+ instead of an embedded one.',
    readBy: 'tests/support/global-database.ts',
  },
  {
    name: 'HOLDFAST_SECOND_TEST_DATABASE_URL',
    default: 'unset',
    meaning:
      "Tests only: `npm test` runs the integration suite a second time on this (fresh) database once its first run is done; `.ci/run` sets it to one on the machine's PostgreSQL.",
    readBy: 'scripts/ci/test-all.ts',
  },
  {
    name: 'HOLDFAST_INTEGRATION_WORKERS',
    default: '`3`, or `2` with `TEST_DATABASE_URL`',
    meaning:
      'Tests only: how many integration test files run at once (each opens up to about 30 connections; a stock PostgreSQL allows 100).',
    readBy: 'vitest.config.ts',
  },
  {
    name: 'HOLDFAST_CHROMIUM_PATH',
    default: '`/usr/bin/chromium`',
    meaning:
      "Tests only: the Chromium the browser tests drive (unset: Debian's `/usr/bin/chromium` if present, else Playwright's own).",
    readBy: 'e2e/support/browser.ts',
  },
  {
    name: 'HOLDFAST_E2E_PORT',
    default: '`3100`',
    meaning: 'Tests only: the port of the server the browser tests start.',
    readBy: 'playwright.config.ts',
  },
] as const;

/** How a default reads in the table: unset, empty, or the value as code. */
function shownDefault(value: unknown): string {
  if (value === undefined) return 'unset';
  if (value === '') return 'empty';
  return `\`${String(value)}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A Markdown table with every column padded to its widest cell, as Biome writes it. */
export function markdownTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows].map((row) => row.map(cell));
  const widths = header.map((_, column) => Math.max(3, ...all.map((row) => row[column]!.length)));
  const line = (row: string[]) => `| ${row.map((text, column) => text.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(all[0]!), line(widths.map((width) => '-'.repeat(width))), ...all.slice(1).map(line)].join('\n');
}

/** The page, as the script writes it. */
export function configurationMarkdown(): string {
  const defaults = environmentSchema.parse({}) as Record<string, unknown>;
  const schemaRows = Object.entries(environmentSchema.shape).map(([name, schema]) => {
    if (!schema.description)
      throw new Error(`packages/engine/src/env.ts: ${name} has no .describe(): say what it means`);
    return [`\`${name}\``, shownDefault(defaults[name]), schema.description];
  });
  const elsewhereRows = variablesReadElsewhere.map((variable) => [
    `\`${variable.name}\``,
    variable.default,
    variable.meaning,
    `[\`${variable.readBy}\`](${path.posix.relative(path.posix.dirname(CONFIGURATION_DOC), variable.readBy)})`,
  ]);
  return [
    '# Configuration',
    '',
    'For operators: every environment variable Holdfast reads, its default and what it does.',
    '',
    "<!-- Generated from packages/engine/src/env.ts by `npm run docs:config` (scripts/docs/configuration-table.ts): edit the schema's `.describe()` texts, not this file. -->",
    '',
    'All variables are read and validated in one place, [`packages/engine/src/env.ts`](../../packages/engine/src/env.ts). A wrong value stops',
    'start-up with one line naming the variable. See also [Database roles](database-roles.md),',
    '[A read replica for the console](deployment.md#a-read-replica-for-the-console) and [Security](security.md).',
    '',
    markdownTable(['variable', 'default', 'meaning'], schemaRows),
    '',
    'Against your own database, migrate before deploying with `DATABASE_URL=... npm run db:migrate`',
    '(`npm start` also migrates; an advisory lock makes parallel starts safe). Demo data is',
    'never written to a database you name unless `HOLDFAST_DEMO_DATA=on`.',
    '',
    '## Read outside packages/engine/src/env.ts',
    '',
    'A few variables are read by one script or by the tests alone, not by the server:',
    '',
    markdownTable(['variable', 'default', 'meaning', 'read by'], elsewhereRows),
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(import.meta.dirname, '../..');
  fs.writeFileSync(path.join(root, CONFIGURATION_DOC), configurationMarkdown());
  console.log(`wrote ${CONFIGURATION_DOC}`);
}
