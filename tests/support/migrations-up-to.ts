import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { migrationsFolder } from '../../packages/engine/src/db/migrate';

/** A copy of packages/engine/drizzle/ that stops after migration `last` (e.g. '0023'), to build a database as an older release left it. */
export async function migrationsUpTo(last: string): Promise<string> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'holdfast-migrations-'));
  await fs.mkdir(path.join(folder, 'meta'));
  const journal = JSON.parse(await fs.readFile(path.join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  journal.entries = journal.entries.filter((entry) => entry.tag.slice(0, 4) <= last);
  await fs.writeFile(path.join(folder, 'meta/_journal.json'), JSON.stringify(journal));
  for (const entry of journal.entries)
    await fs.copyFile(path.join(migrationsFolder, `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));
  return folder;
}
