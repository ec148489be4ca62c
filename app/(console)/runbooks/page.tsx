import type { Metadata } from 'next';
import { requirePerson } from '@/lib/server/session';
import { MarkdownView } from './markdown-view';
import { readRunbookIndex } from './read-runbook';

export const metadata: Metadata = { title: 'Runbooks' };
export const dynamic = 'force-dynamic';

/** docs/runbooks/README.md: every runbook, by alert kind and Prometheus alert. */
export default async function RunbooksPage() {
  await requirePerson();
  return <MarkdownView markdown={await readRunbookIndex()} />;
}
