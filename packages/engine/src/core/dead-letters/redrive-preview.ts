import { eq } from 'drizzle-orm';
import { deadLetters } from '../../db/schema';
import { authorize } from '../identity/authorization';
import { nowOf, policyOf, type CoreContext } from '../kernel/context';
import { NotFoundError } from '@holdfast/protocol/errors';
import { judgeRedrive, type RedriveOutcome, selectRedriveCandidates } from './bulk-redrive-preview';
import { type BrakeRefusal, redriveBrakesRefusing } from './redrive-brakes';

/** What redriving one dead letter would do now, judged as a bulk redrive judges each item. */
export interface RedrivePreview {
  deadLetterId: number;
  /** What its failed step's key will do when the task reaches the step again. */
  outcome: RedriveOutcome;
  /** The brakes that refuse it now; empty when it may go ahead. */
  brakes: BrakeRefusal[];
  /** Its last failure was `permanent`: redriven unchanged it will most likely fail the same way. */
  lastFailedPermanently: boolean;
}

/** What a redrive of this dead letter would do, without doing it. */
export async function previewRedrive(ctx: CoreContext, deadLetterId: number): Promise<RedrivePreview> {
  authorize(ctx, 'dead_letter.redrive');
  const [row] = await selectRedriveCandidates(ctx.db).where(eq(deadLetters.id, deadLetterId));
  if (!row) throw new NotFoundError(`No dead letter ${deadLetterId}`);
  const now = nowOf(ctx);
  return {
    deadLetterId,
    outcome: judgeRedrive(row.deadLetter.payload, row.key ?? undefined, now),
    // As a redrive judges it: a task without a budget row has no history to brake on.
    brakes: row.history ? redriveBrakesRefusing(row.history, policyOf(ctx).redriveBrakes, now) : [],
    lastFailedPermanently: row.deadLetter.errorClass === 'permanent',
  };
}
