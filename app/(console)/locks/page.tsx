import type { Metadata } from 'next';
import { AreaNotBuilt } from '@/components/layout/area-not-built';

export const metadata: Metadata = { title: 'Locks' };

export default function Page() {
  return <AreaNotBuilt href="/locks" />;
}
