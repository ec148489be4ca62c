import 'server-only';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The runbooks are the repository's docs/runbooks/*.md, read as they are on
 * disk (the server runs from the project's folder, the container copies it
 * whole), so the console and the repository never disagree.
 */
const RUNBOOKS_DIR = path.join(process.cwd(), 'docs', 'runbooks');

/** A page's Markdown, or undefined for a name that is no runbook (only kebab-case names are looked up). */
export async function readRunbook(page: string): Promise<string | undefined> {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(page)) return undefined;
  try {
    return await fs.readFile(path.join(RUNBOOKS_DIR, `${page}.md`), 'utf8');
  } catch {
    return undefined;
  }
}

/** The index, docs/runbooks/README.md. */
export const readRunbookIndex = () => fs.readFile(path.join(RUNBOOKS_DIR, 'README.md'), 'utf8');
