import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { RUNBOOKS_PATH } from '@holdfast/engine/alerts';
import { requirePerson } from '@/lib/server/session';
import { MarkdownView } from '../markdown-view';
import { readRunbook } from '../read-runbook';

export const metadata: Metadata = { title: 'Runbook' };
export const dynamic = 'force-dynamic';

/** One alert's runbook (docs/runbooks/<page>.md), where its rule's runbook_url and its notifications lead. */
export default async function RunbookPage({ params }: { params: Promise<{ page: string }> }) {
  await requirePerson();
  const markdown = await readRunbook((await params).page);
  if (markdown === undefined) notFound();
  return (
    <>
      <nav aria-label="Runbooks" className="mb-3 text-[12px]">
        <Link href={RUNBOOKS_PATH} className="text-accent hover:underline">
          ← All runbooks
        </Link>
      </nav>
      <MarkdownView markdown={markdown} />
    </>
  );
}
