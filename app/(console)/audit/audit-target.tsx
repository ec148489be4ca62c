import Link from 'next/link';
import { keyHref } from '@/lib/console/filter-forms/keys';
import { VisibleText } from '@/components/ui/visible-text';

/** Where a target has a page of its own, its id links there (tasks to their timeline, keys to their detail). */
const targetHref: Partial<Record<string, (id: string) => string>> = {
  task: (id) => `/tasks/${encodeURIComponent(id)}`,
  key: keyHref,
};

export function AuditTarget({ type, id }: { type: string; id: string }) {
  const href = targetHref[type]?.(id);
  return href ? (
    <Link href={href} className="text-accent hover:underline">
      {type}:<VisibleText text={id} />
    </Link>
  ) : (
    <>
      {type}:<VisibleText text={id} />
    </>
  );
}
