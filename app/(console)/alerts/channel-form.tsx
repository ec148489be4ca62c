'use client';

import { useActionState, useEffect, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { useToast } from '@/components/ui/toast';
import { refocus } from '@/components/console/focus-after-action';
import { createChannelAction } from './actions';
import { SecretBox } from './secret-box';

/** Adds a channel; a webhook's signing secret is shown below once, to copy, and never again. */
export function ChannelForm() {
  const [state, submit, pending] = useActionState(createChannelAction, undefined);
  const result = state?.result;
  const errors = result?.ok === false ? (result.fieldErrors ?? {}) : {};
  const values = state?.values ?? { name: '', kind: 'webhook', url: '', team: '' };
  const toast = useToast();
  const addButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!result) return;
    toast.show(
      result.ok
        ? result.data.signingSecret
          ? `Channel ${result.data.name} added: copy its signing secret below now.`
          : `Channel ${result.data.name} added. Send a test to check it.`
        : `Not added: ${result.code === 'INVALID_INPUT' ? 'check the fields marked in the form.' : result.message}`,
      { tone: result.ok ? 'success' : 'error' },
    );
    // Adding disabled the button, which drops focus: give it back.
    refocus(addButton.current);
  }, [result, toast]);
  return (
    <div className="mb-5 flex flex-col gap-3">
      <form
        action={submit}
        className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
        data-testid="channel-form"
        aria-labelledby="channel-form-title"
      >
        <h2 id="channel-form-title" className="text-[13px] font-medium">
          Add a channel
        </h2>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-[1fr_auto_2fr_1fr]">
          <Field id="channel-name" label="Name" error={errors.name} errorTestId="channel-error-name">
            <Input
              name="name"
              required
              maxLength={80}
              defaultValue={values.name}
              placeholder="e.g. payments on-call"
              onSurface
              className="w-full"
            />
          </Field>
          <Field id="channel-kind" label="Kind" error={errors.kind} errorTestId="channel-error-kind">
            <Select name="kind" defaultValue={values.kind} onSurface className="w-full">
              <option value="webhook">Webhook (signed JSON)</option>
              <option value="slack">Slack incoming webhook</option>
            </Select>
          </Field>
          <Field
            id="channel-url"
            label="URL"
            hint="https (plain http only to 127.0.0.1 or localhost); shown afterwards as its host only"
            error={errors.url}
            errorTestId="channel-error-url"
          >
            <Input
              name="url"
              type="text"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              required
              defaultValue={values.url}
              placeholder="https://hooks.example.com/…"
              onSurface
              className="w-full"
            />
          </Field>
          <Field
            id="channel-team"
            label="Team (optional)"
            hint="Only this team's alerts; blank for every alert"
            error={errors.team}
            errorTestId="channel-error-team"
          >
            <Input name="team" defaultValue={values.team} placeholder="every alert" onSurface className="w-full" />
          </Field>
        </div>
        <div>
          <Button
            ref={addButton}
            type="submit"
            variant="primary"
            size="md"
            pending={pending}
            pendingLabel="Adding…"
            className="whitespace-nowrap"
          >
            Add channel
          </Button>
        </div>
        <FormError result={result}>
          {result?.ok === false && result.code === 'INVALID_INPUT' ? 'Check the fields marked above.' : null}
        </FormError>
      </form>
      {result?.ok && result.data.signingSecret ? (
        <SecretBox name={result.data.name} secret={result.data.signingSecret} />
      ) : null}
    </div>
  );
}
