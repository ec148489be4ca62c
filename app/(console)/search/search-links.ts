import { keyHref } from '@/lib/console/filter-forms/keys';
import type { SearchHit, SearchKind } from '@/lib/queries/search';

const taskHref = (taskId: string) => `/tasks/${encodeURIComponent(taskId)}`;
const deadLetterHref = (id: string) => `/dead-letters/${encodeURIComponent(id)}`;

/** Each kind's name on the results page. */
export const searchKindLabels: Record<SearchKind, string> = {
  task: 'Tasks',
  key: 'Keys',
  hold: 'Holds',
  dead_letter: 'Dead letters',
  step: 'Steps',
};

/** Where a hit's page is: each kind has one (a hold's names what it parks and links there). */
export function searchHitHref(hit: SearchHit): string {
  switch (hit.kind) {
    case 'task':
      return taskHref(hit.id);
    case 'key':
      return keyHref(hit.id);
    case 'dead_letter':
      return deadLetterHref(hit.id);
    case 'step':
      return `/steps/${encodeURIComponent(hit.agent)}/${encodeURIComponent(hit.step)}`;
    case 'hold':
      return `/holds/${encodeURIComponent(hit.id)}`;
  }
}

/** A line saying what the hit is, beside its id. */
export function searchHitDetail(hit: SearchHit): string {
  switch (hit.kind) {
    case 'task':
      return [hit.agent, hit.status].filter(Boolean).join(' · ') || 'reported without a budget';
    case 'key':
      return hit.status;
    case 'dead_letter':
      return `${hit.agent} · ${hit.step} · ${hit.status}`;
    case 'step':
      return `${hit.agent} · ${hit.step}`;
    case 'hold':
      return `${hit.status} · parks ${hit.itemType} ${hit.itemId} · ${hit.owner}`;
  }
}
