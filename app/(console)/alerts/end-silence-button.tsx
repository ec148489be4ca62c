'use client';

import { useState, useTransition } from 'react';
import { refocusById } from '@/components/console/focus-after-action';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useToast } from '@/components/ui/toast';
import { endSilenceAction } from './actions';

/** Ends a silence early, after a confirmation saying what happens to the alerts it holds back. */
export function EndSilenceButton({
  silenceId,
  describe,
  matchingFiring,
  headingId,
}: {
  silenceId: number;
  /** What the silence matches, in words, for the button's name and the dialog. */
  describe: string;
  matchingFiring: number;
  headingId: string;
}) {
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const [pending, startTransition] = useTransition();

  const end = () => {
    // Closed first: a modal makes the rest of the page inert, and focus must be able to move on.
    setConfirming(false);
    startTransition(async () => {
      const result = await endSilenceAction(silenceId);
      if (result.ok) {
        toast.show(
          result.data.changed
            ? `Ended the silence of ${describe}.`
            : `The silence of ${describe} had already ended: nothing changed.`,
          { tone: 'success' },
        );
        // The row moves to the ended list: the list's heading takes focus.
        refocusById(headingId);
      } else {
        toast.show(`Not ended: ${result.message}`, { tone: 'error' });
      }
    });
  };

  return (
    <>
      <Button
        variant="danger-link"
        className="text-[12px]"
        pending={pending}
        pendingLabel="Ending…"
        aria-label={`End the silence of ${describe}`}
        onClick={() => setConfirming(true)}
      >
        End now
      </Button>
      <ConfirmDialog
        open={confirming}
        title={`End the silence of ${describe}?`}
        confirmLabel="End silence"
        tone="danger"
        onCancel={() => setConfirming(false)}
        onConfirm={end}
        testId={confirming ? 'end-silence-dialog' : undefined}
      >
        {matchingFiring === 0
          ? 'No alert it matches is firing now; alerts it would have matched are sent from now on.'
          : `It matches ${matchingFiring} alert${matchingFiring === 1 ? '' : 's'} firing now: those not sent yet go to the channels within a minute, and they count as waiting for someone again.`}
      </ConfirmDialog>
    </>
  );
}
