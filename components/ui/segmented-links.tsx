import Link from 'next/link';
import clsx from 'clsx';

export interface SegmentedLink {
  href: string;
  label: string;
  title?: string;
  active: boolean;
}

/** A row of mutually exclusive choices kept in the URL, so a view can be shared as a link. */
export function SegmentedLinks({ label, links }: { label: string; links: SegmentedLink[] }) {
  return (
    <nav aria-label={label} className="inline-flex rounded-md border border-line bg-surface p-0.5">
      {links.map((link) => (
        <Link
          key={link.href}
          href={link.href}
          title={link.title}
          aria-current={link.active ? 'true' : undefined}
          className={clsx(
            'rounded px-2.5 py-1 text-[12px] font-medium',
            link.active ? 'bg-accent text-on-accent' : 'text-muted hover:text-ink',
          )}
        >
          {link.label}
        </Link>
      ))}
    </nav>
  );
}
