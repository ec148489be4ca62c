'use client';

import { useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useToast } from '@/components/ui/toast';
import { deleteChannelAction, sendTestAction, setChannelEnabledAction } from './actions';

/** An admin's buttons for one channel: send a test, switch it off or on, delete it (after a confirmation). */
export function ChannelActions({ id, name, enabled }: { id: number; name: string; enabled: boolean }) {
  const toast = useToast();
  const [pending, startTransition] = useTransition();
  const [busy, setBusy] = useState<'test' | 'toggle' | 'delete' | undefined>();
  const [confirming, setConfirming] = useState(false);

  const run = (
    what: 'test' | 'toggle' | 'delete',
    work: () => Promise<{ ok: boolean; message?: string }>,
    done: string,
  ) => {
    setBusy(what);
    startTransition(async () => {
      const result = await work();
      setBusy(undefined);
      if (what === 'delete') setConfirming(false);
      if (result.ok) toast.show(done, { tone: 'success' });
      else toast.show(result.message ?? 'That did not work.', { tone: 'error' });
    });
  };

  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
      <Button
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
        variant="danger-link"
        className="text-[12px]"
        disabled={pending}
        aria-label={`Delete ${name}`}
        onClick={() => setConfirming(true)}
      >
        Delete…
      </Button>
      <ConfirmDialog
        open={confirming}
        title={`Delete the channel ${name}?`}
        confirmLabel="Delete channel"
        tone="danger"
        pending={busy === 'delete'}
        pendingLabel="Deleting…"
        onCancel={() => setConfirming(false)}
        onConfirm={() => run('delete', () => deleteChannelAction(id), `${name} deleted.`)}
        testId="delete-channel-dialog"
      >
        Alerts stop going to it, and its notifications still waiting to be delivered are marked failed (&ldquo;channel
        deleted&rdquo;). Its past deliveries stay in the history. This cannot be undone: to use the receiver again, add
        a new channel (a webhook gets a new signing secret).
      </ConfirmDialog>
    </div>
  );
}
