'use client';

import { useEffect, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useToast } from '@/components/ui/toast';
import { refocus, refocusById } from '@/components/console/focus-after-action';
import { revokeTokenAction } from './actions';
import { useRevealedTokens } from './revealed-token';

/** Revokes one token after a confirmation naming it; announces the outcome and keeps focus on the page. */
export function RevokeToken({
  tokenId,
  name,
  prefix,
  headingId,
}: {
  tokenId: number;
  name: string;
  prefix: string;
  headingId: string;
}) {
  const toast = useToast();
  const { markRevoked } = useRevealedTokens();
  const [confirming, setConfirming] = useState(false);
  const [pending, startTransition] = useTransition();
  const [failures, setFailures] = useState(0);
  const button = useRef<HTMLButtonElement>(null);

  // A refused revoke leaves the row: focus goes back to its button once it is enabled again.
  useEffect(() => {
    if (failures > 0 && !pending) refocus(button.current);
  }, [failures, pending]);

  const revoke = () => {
    // Closed first: a modal makes the rest of the page inert, and focus must be able to move on.
    setConfirming(false);
    startTransition(async () => {
      const result = await revokeTokenAction(tokenId);
      if (result.ok) {
        markRevoked(tokenId);
        toast.show(
          result.data.changed
            ? `Revoked the token for ${name}: requests with it now get 401.`
            : `The token for ${name} was already revoked: nothing changed.`,
          { tone: 'success' },
        );
        // The button gives way to "revoked": the list's heading takes focus.
        refocusById(headingId);
      } else {
        toast.show(`Not revoked: ${result.message}`, { tone: 'error' });
        setFailures((count) => count + 1);
      }
    });
  };

  return (
    <>
      <Button
        ref={button}
        variant="danger-link"
        className="text-[12px]"
        pending={pending}
        pendingLabel="Revoking…"
        aria-label={`Revoke the token for ${name}`}
        onClick={() => setConfirming(true)}
      >
        Revoke
      </Button>
      <ConfirmDialog
        open={confirming}
        title={`Revoke the token for ${name} (${prefix}…)?`}
        confirmLabel="Revoke token"
        tone="danger"
        onCancel={() => setConfirming(false)}
        onConfirm={revoke}
        // Only the open one is named: one row's dialog at a time, so the id finds it on a page of many.
        testId={confirming ? 'revoke-token-dialog' : undefined}
      >
        Every request with it is refused (401) from now on, and it cannot be restored: an agent still using it needs a
        new token.
      </ConfirmDialog>
    </>
  );
}
