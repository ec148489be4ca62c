'use client';

import { useQuery } from '@tanstack/react-query';
import { ReadSourceNotice } from '@/components/read-source-notice';
import { readNotice } from '@/lib/server/read-source/notice';
import type { TimeWindowName } from '@holdfast/protocol/time-window';
import { overviewQuery } from './overview-query';

/**
 * Where the headline figures were read, updated with each poll: "Figures as
 * of N s ago" from a replica that is behind, or a warning when the replica
 * could not serve and the primary did.
 */
export function OverviewReadSource({ window }: { window: TimeWindowName }) {
  const figures = useQuery(overviewQuery(window));
  return <ReadSourceNotice notice={readNotice(figures.data?.readSource)} />;
}
