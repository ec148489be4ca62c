import Link from 'next/link';
import { auditTargetHref } from '@/lib/console/audit-target-href';
import { VisibleText } from '@/components/ui/visible-text';

/** An audit record's target, linked to where the console shows it (lib/console/audit-target-href.ts). */
export function AuditTarget({ type, id }: { type: string; id: string }) {
  const href = auditTargetHref(type, id);
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
