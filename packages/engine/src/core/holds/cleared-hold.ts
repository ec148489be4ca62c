import { sql } from 'drizzle-orm';
import type { HoldClosing } from '../../db/schema';
import { actorLabel, type Actor } from '../kernel/context';

/**
 * The columns a hold takes when it closes, however it closes: a person clears it (resume or discard), acting on
 * its dead letter clears it too, or the sweep finds its condition gone (resolved). One place, so the three agree
 * with the table's check that a cleared hold has a resolution and a time.
 */
export function clearedHoldColumns(resolution: HoldClosing, note: string, actor: Actor) {
  return {
    status: 'cleared' as const,
    resolution,
    resolutionNote: note,
    clearedAt: sql`now()`,
    clearedBy: actorLabel(actor),
    updatedAt: sql`now()`,
  };
}
