import type { ReadNotice } from '@/lib/server/read-source/notice';

/**
 * Where a page's figures come from, when that matters: a replica behind the
 * primary (a quiet line), or the primary because the replica could not serve
 * (a warning). A status region, so a change is announced once, not each second.
 */
export function ReadSourceNotice({ notice }: { notice: ReadNotice | undefined }) {
  if (!notice) return null;
  return (
    <p
      role="status"
      data-testid="read-source-notice"
      data-kind={notice.kind}
      className={
        notice.kind === 'fallback'
          ? 'mb-4 rounded-md bg-warn-soft px-3 py-2 text-[13px] text-warn'
          : 'mb-4 rounded-md border border-line bg-surface px-3 py-2 text-[13px] text-muted'
      }
    >
      {notice.text}
    </p>
  );
}
