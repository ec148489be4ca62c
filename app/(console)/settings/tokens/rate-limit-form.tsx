'use client';

import { useActionState, useEffect } from 'react';
import { Button } from '@/components/ui/button';
import { FormError } from '@/components/ui/form-error';
import { useToast } from '@/components/ui/toast';
import { setTokenRateLimitAction } from './actions';
import { RateFields } from './rate-fields';

/**
 * One token's rate limit, editable in its row: requests a second and burst,
 * blank for the deployment's default (shown as the placeholder). The library
 * validates the numbers; a refusal names the field beside it.
 */
export function RateLimitForm({
  tokenId,
  name,
  ratePerSecond,
  rateBurst,
  defaults,
}: {
  tokenId: number;
  name: string;
  ratePerSecond: number | null;
  rateBurst: number | null;
  defaults: { perSecond: number; burst: number };
}) {
  const [result, submit, pending] = useActionState(setTokenRateLimitAction, undefined);
  const toast = useToast();
  useEffect(() => {
    if (result?.ok)
      toast.show(
        result.data.changed ? `Rate limit of ${name} saved: it applies from its next request.` : 'Nothing changed.',
        { tone: 'success' },
      );
  }, [result, toast, name]);
  const errors = result && !result.ok ? result.fieldErrors : undefined;
  return (
    <form action={submit} className="flex flex-wrap items-center gap-1" data-testid={`token-rate-form-${tokenId}`}>
      <input type="hidden" name="tokenId" value={tokenId} />
      <RateFields
        defaults={defaults}
        values={{ ratePerSecond, rateBurst }}
        errors={errors}
        inRow={name}
        testIdPrefix="token-rate"
      />
      <Button
        type="submit"
        variant="secondary"
        size="sm"
        pending={pending}
        pendingLabel="Saving…"
        aria-label={`Save the rate limit of ${name}`}
      >
        Save
      </Button>
      <FormError result={result} className="w-full">
        {errors ? 'Check the numbers marked above.' : undefined}
      </FormError>
    </form>
  );
}
