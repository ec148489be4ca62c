import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { consoleAreas } from '@/lib/navigation';

/** The page of an area that is planned but not built yet: says what will be here. */
export function AreaNotBuilt({ href }: { href: string }) {
  const area = consoleAreas.find((candidate) => candidate.href === href);
  if (!area) throw new Error(`No console area at ${href}`);
  return (
    <>
      <PageHeader title={area.label} description={area.purpose} />
      <EmptyState title={`${area.label} is not built yet`} testId="area-not-built">
        This area is planned. Until it lands, the Overview shows retry figures per step.
      </EmptyState>
    </>
  );
}
