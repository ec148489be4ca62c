import type { Metadata } from 'next';
import { AreaNotBuilt } from '@/components/layout/area-not-built';

export const metadata: Metadata = { title: 'Holds' };

export default function Page() {
  return <AreaNotBuilt href="/holds" />;
}
