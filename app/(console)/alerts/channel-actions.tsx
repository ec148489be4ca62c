'use client';

import { useEffect, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useToast } from '@/components/ui/toast';
import { refocus, refocusById } from '@/components/console/focus-after-action';
import { deleteChannelAction, sendTestAction, setChannelEnabledAction } from './actions';

type ChannelAction = 'test' | 'toggle' | 'delete';

/**
 * An admin's buttons for one channel: send a test, switch it off or on, delete
 * it (after a confirmation). Each announces its outcome; focus returns to the
 * button pressed (disabled while it runs, which drops focus), or after a delete,
 * which takes the row away, to the list's heading.
 */
export function ChannelActions({
  id,
  name,
  enabled,
  headingId,
}: {
  id: number;
  name: string;
  enabled: boolean;
  headingId: string;
}) {
  const toast = useToast();
  const [pending, startTransition] = useTransition();
  const [busy, setBusy] = useState<ChannelAction | undefined>();
  const [confirming, setConfirming] = useState(false);
  const [finished, setFinished] = useState<{ what: ChannelAction; count: number }>();
  const testButton = useRef<HTMLButtonElement>(null);
  const toggleButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);

  // Once the transition is over: until then the button pressed is disabled and cannot take focus.
  useEffect(() => {
    if (!finished || pending) return;
    const pressed = { test: testButton, toggle: toggleButton, delete: deleteButton }[finished.what];
    refocus(pressed.current);
  }, [finished, pending]);

  const run = (what: ChannelAction, work: () => Promise<{ ok: boolean; message?: string }>, done: string) => {
    setBusy(what);
    startTransition(async () => {
      const result = await work();
      setBusy(undefined);
      if (result.ok) toast.show(done, { tone: 'success' });
      else toast.show(`Not done: ${result.message ?? 'that did not work.'}`, { tone: 'error' });
      // A deleted channel's row goes with its buttons: the list's heading takes focus.
      if (result.ok && what === 'delete') refocusById(headingId);
      else setFinished((before) => ({ what, count: (before?.count ?? 0) + 1 }));
    });
  };

  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
      <Button
        ref={testButton}
        variant="link"
        className="text-[12px]"
        disabled={!enabled || pending}
        title={enabled ? undefined : 'Enable the channel to send a test'}
        aria-label={`Send a test to ${name}`}
        onClick={() =>
          run('test', () => sendTestAction(id), `Test queued for ${name}: its delivery shows under History.`)
        }
      >
        {busy === 'test' ? 'Queuing…' : 'Send a test'}
      </Button>
      <Button
        ref={toggleButton}
        variant="link"
        className="text-[12px]"
        disabled={pending}
        aria-label={`${enabled ? 'Disable' : 'Enable'} ${name}`}
        onClick={() =>
          run(
            'toggle',
            () => setChannelEnabledAction(id, !enabled),
            enabled ? `${name} disabled: it is sent nothing new.` : `${name} enabled.`,
          )
        }
      >
        {busy === 'toggle' ? 'Saving…' : enabled ? 'Disable' : 'Enable'}
      </Button>
      <Button
        ref={deleteButton}
        variant="danger-link"
        className="text-[12px]"
        disabled={pending}
        aria-label={`Delete ${name}`}
        onClick={() => setConfirming(true)}
      >
        {busy === 'delete' ? 'Deleting…' : 'Delete…'}
      </Button>
      <ConfirmDialog
        open={confirming}
        title={`Delete the channel ${name}?`}
        confirmLabel="Delete channel"
        tone="danger"
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          // Closed first: a modal makes the rest of the page inert, and focus must be able to move on.
          setConfirming(false);
          run('delete', () => deleteChannelAction(id), `${name} deleted.`);
        }}
        // Only the open one is named: one row's dialog at a time, so the id finds it on a page of many.
        testId={confirming ? 'delete-channel-dialog' : undefined}
      >
        Alerts stop going to it, and its notifications still waiting to be delivered are marked failed (&ldquo;channel
        deleted&rdquo;). Its past deliveries stay in the history. This cannot be undone: to use the receiver again, add
        a new channel (a webhook gets a new signing secret).
      </ConfirmDialog>
    </div>
  );
}
