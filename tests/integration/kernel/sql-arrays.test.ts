import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { arrayParam } from '../../../packages/engine/src/core/kernel/sql-arrays';
import { useTestDatabase } from '../../support/test-database';

/** The traces receiver hands its batches to PostgreSQL as array literals: every value comes back as it went. */
const database = useTestDatabase();

describe('array parameters', () => {
  it('carry any text, NULL and the words that look like it, numbers and booleans unchanged', async () => {
    const texts = [
      'plain',
      '0af7651916cd43dd8448eb211c80319c',
      '',
      ' spaced ',
      'NULL',
      'null',
      'Null',
      'a,b',
      '{braces}',
      'quote " inside',
      'back\\slash',
      '\\"both\\"',
      'tab\there',
      'new\nline',
      'é 漢字 🙂',
      '\u00a0no-break',
      null,
    ];
    const rows = await database.db.execute<{ value: string | null }>(
      sql`select value from unnest(${arrayParam(texts, 'text')}) with ordinality as t(value, position) order by position`,
    );
    expect(rows.map((row) => row.value)).toEqual(texts);

    const numbers = [0, -1, 1_796_199_261_164, 2 ** 53 - 1, null];
    const counts = await database.db.execute<{ value: string | null }>(
      sql`select value::text as value from unnest(${arrayParam(numbers, 'bigint')}) with ordinality as t(value, position)
        order by position`,
    );
    expect(counts.map((row) => row.value)).toEqual(['0', '-1', '1796199261164', '9007199254740991', null]);

    const flags = await database.db.execute<{ value: boolean | null }>(
      sql`select value from unnest(${arrayParam([true, false, null], 'boolean')}) with ordinality as t(value, position)
        order by position`,
    );
    expect(flags.map((row) => row.value)).toEqual([true, false, null]);
  });
});
