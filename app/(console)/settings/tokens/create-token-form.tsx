'use client';

import { useActionState, useEffect, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { refocus } from '@/components/console/focus-after-action';
import { createTokenAction } from './actions';
import { RateFields } from './rate-fields';
import { useRevealedTokens } from './revealed-token';

/** Creates a token; its secret is shown here once and cannot be shown again. */
export function CreateTokenForm({ defaults }: { defaults: { perSecond: number; burst: number } }) {
  const [result, submit, pending] = useActionState(createTokenAction, undefined);
  const toast = useToast();
  const { revoked } = useRevealedTokens();
  const createButton = useRef<HTMLButtonElement>(null);
  // Revoked since it was created: its secret is worthless, and showing it would invite copying it.
  const secret = result?.ok && !revoked.has(result.data.id) ? result.data : undefined;

  useEffect(() => {
    if (!result) return;
    toast.show(result.ok ? `Token created for ${result.data.name}: copy it now.` : `Not created: ${result.message}`, {
      tone: result.ok ? 'success' : 'error',
    });
    refocus(createButton.current);
  }, [result, toast]);
  return (
    <div className="flex flex-col gap-3">
      <form
        action={submit}
        className="flex flex-wrap items-end gap-3 rounded-lg border border-line bg-surface p-4"
        data-testid="create-token-form"
      >
        <Field label="Used by">
          <Input name="name" required placeholder="outreach agent" onSurface />
        </Field>
        <Field label="Only for agents">
          <Input
            name="allowedAgents"
            placeholder="any agent"
            aria-describedby="token-limits-help"
            data-testid="token-allowed-agents"
            onSurface
          />
        </Field>
        <Field label="Only on queues">
          <Input
            name="allowedQueues"
            placeholder="any queue"
            aria-describedby="token-limits-help"
            data-testid="token-allowed-queues"
            onSurface
          />
        </Field>
        <RateFields defaults={defaults} errors={fieldErrorsOf(result)} testIdPrefix="new-token-rate" />
        <fieldset className="flex gap-3 text-[13px]">
          <legend className="mb-1 text-[12px] text-muted">Scopes</legend>
          <label className="flex items-center gap-1">
            <input type="checkbox" name="scopes" value="ingest" defaultChecked /> ingest
          </label>
          <label className="flex items-center gap-1">
            <input type="checkbox" name="scopes" value="read" /> read
          </label>
          <label className="flex items-center gap-1" title="Prometheus scrapes GET /metrics with it; nothing else">
            <input type="checkbox" name="scopes" value="metrics" /> metrics
          </label>
          <label
            className="flex items-center gap-1"
            title="An OpenTelemetry exporter sends spans to POST /v1/traces with it; nothing else"
          >
            <input type="checkbox" name="scopes" value="traces" /> traces
          </label>
        </fieldset>
        <p id="token-limits-help" className="w-full text-[12px] text-muted">
          Names separated by commas; leave blank for no limit. A limited token is refused (403) for any other agent or
          queue.
        </p>
        <p id="token-rate-help" className="w-full text-[12px] text-muted">
          Rate limit: requests a second and how many at once; past it the token is answered 429 with Retry-After. Leave
          blank for the defaults, shared by every Holdfast instance on this database.
        </p>
        <Button ref={createButton} type="submit" variant="primary" size="md" pending={pending} pendingLabel="Creating…">
          Create token
        </Button>
      </form>
      {secret ? (
        <div
          className="rounded-lg border border-line bg-warn-soft p-4 text-[13px] [overflow-wrap:anywhere]"
          data-testid="new-token-banner"
        >
          <p className="font-medium text-warn">Copy the token for {secret.name} now: it is shown only once.</p>
          <div className="mt-2 flex items-start gap-2">
            <code data-testid="new-token" className="block min-w-0 flex-1 break-all font-mono text-[12px] text-ink">
              {secret.token}
            </code>
            <CopyButton text={secret.token} label="Token" testId="copy-token" />
          </div>
        </div>
      ) : (
        <FormError result={result} />
      )}
    </div>
  );
}

function fieldErrorsOf(result: Awaited<ReturnType<typeof createTokenAction>> | undefined) {
  return result && !result.ok ? result.fieldErrors : undefined;
}
