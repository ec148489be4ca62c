import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../../packages/engine/src/db/migrate';
import { DEFAULT_ERROR_CLASS_RULES, readErrorClassRules } from '../../../packages/engine/src/traces/error-class-rules';
import { migrationsUpTo } from '../../support/migrations-up-to';
import { useTestDatabase } from '../../support/test-database';

/**
 * Migration 0047 on a database as the previous release left it: the SDK class-name rules are added where the
 * table still holds the rules 0029 seeded, and the table then equals DEFAULT_ERROR_CLASS_RULES; a table an admin
 * edited is left as the admin left it.
 */
const database = useTestDatabase({ migrated: false });
const migration = fs.readFileSync(
  path.join(import.meta.dirname, '../../../packages/engine/drizzle/0047_sdk_error_class_rules.sql'),
  'utf8',
);

describe('migration 0047: error class rules for SDK class names', () => {
  it('adds them to the seeded rules, and leaves rules an admin edited alone', async () => {
    await migrateDatabase(database.url, await migrationsUpTo('0046'));
    expect(await readErrorClassRules(database.db)).toHaveLength(6);
    await migrateDatabase(database.url);
    expect(await readErrorClassRules(database.db)).toEqual(DEFAULT_ERROR_CLASS_RULES);

    // An admin's table: the 0029 rules with one changed (409 made transient). The migration adds nothing to it.
    await database.sql`delete from error_class_rules where position in (52, 54, 65)`;
    await database.sql`update error_class_rules set http_status_from = 409, http_status_to = 409 where position = 30`;
    const edited = await readErrorClassRules(database.db);
    await database.sql.unsafe(migration);
    expect(await readErrorClassRules(database.db)).toEqual(edited);
  });
});
