import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentSchema } from '../../../packages/engine/src/env';
import {
  CONFIGURATION_DOC,
  configurationMarkdown,
  markdownTable,
  variablesReadElsewhere,
} from '../../../scripts/docs/configuration-table';

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

describe('docs/operations/configuration.md', () => {
  it('is what `npm run docs:config` makes from packages/engine/src/env.ts (run it after changing the schema)', () => {
    expect(read(CONFIGURATION_DOC)).toBe(configurationMarkdown());
  });

  it('describes every variable of the schema, with its default', () => {
    const page = read(CONFIGURATION_DOC);
    for (const [name, schema] of Object.entries(environmentSchema.shape)) {
      expect(schema.description, `${name} has no .describe()`).toBeTruthy();
      expect(page).toContain(`| \`${name}\``);
    }
    expect(page).toMatch(/\| `PORT` +\| `3000` +\| Port of the dashboard\. +\|/);
    expect(page).toMatch(/\| `DATABASE_URL` +\| unset +\|/);
    expect(page).toMatch(/\| `HOLDFAST_ALERT_ALLOWED_HOSTS` +\| empty +\|/);
  });

  it('lists variables read outside the schema only where they are read, and none the schema reads', () => {
    const schemaNames = new Set(Object.keys(environmentSchema.shape));
    for (const variable of variablesReadElsewhere) {
      expect(read(variable.readBy), `${variable.readBy} reads ${variable.name}`).toContain(variable.name);
      expect(schemaNames.has(variable.name), variable.name).toBe(false);
    }
  });

  it('pads tables as Biome formats them, escaping pipes', () => {
    expect(markdownTable(['a', 'long header'], [['`x|y`', 'b']])).toBe(
      ['| a      | long header |', '| ------ | ----------- |', '| `x\\|y` | b           |'].join('\n'),
    );
  });
});
