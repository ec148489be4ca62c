'use client';

import { useRouter } from 'next/navigation';
import { type FormEvent, useId, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { useToast } from '@/components/ui/toast';
import type { PolicySimulation } from '@holdfast/engine/core';
import { formatCount, formatMicros, formatUtc } from '@/lib/console/format';
import { retriableClasses } from '@holdfast/protocol/inputs/step-policy-input';
import type { ActionResult } from '@/lib/server/action';
import { saveStepPolicyAction, simulatePolicyAction } from './policy-actions';
import type { PolicyOverride } from './step-policy-form';

function duration(ms: number): string {
  if (ms < 60_000) return `${formatCount(Math.round(ms / 1_000))} s`;
  if (ms < 3_600_000) return `${formatCount(Math.round(ms / 60_000))} min`;
  return `${formatCount(Math.round(ms / 360_000) / 10)} h`;
}

/**
 * "What if this step retried less?": replays its recorded attempts under
 * another policy and shows what it would have saved and what it would have
 * lost; admins may then apply that policy as the step's override.
 */
export function PolicySimulator({
  names,
  canApply,
  override,
}: {
  names: { agent: string; step: string };
  canApply: boolean;
  /** The step's override now: applying keeps its other parts (backoff, allowance). */
  override: PolicyOverride | null;
}) {
  const toast = useToast();
  const router = useRouter();
  const id = useId();
  const [result, setResult] = useState<ActionResult<PolicySimulation>>();
  const [asked, setAsked] = useState<FormData>();
  const [pending, startTransition] = useTransition();
  const [confirming, setConfirming] = useState(false);
  const errors = result && !result.ok ? result.fieldErrors : undefined;
  const simulation = result?.ok ? result.data : undefined;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    startTransition(async () => {
      const answer = await simulatePolicyAction(undefined, data);
      startTransition(() => {
        setResult(answer);
        setAsked(data);
      });
    });
  };

  const apply = () => {
    if (!asked) return;
    const data = new FormData();
    data.set('agent', names.agent);
    data.set('step', names.step);
    data.set('maxAttempts', String(asked.get('maxAttempts')));
    data.set('classesOverridden', 'on');
    for (const errorClass of asked.getAll('retriedClasses')) data.append('retriedClasses', String(errorClass));
    for (const part of ['baseDelayMs', 'maxDelayMs', 'retryAllowance'] as const) {
      if (override?.[part] != null) data.set(part, String(override[part]));
    }
    data.set(
      'reason',
      `applied from the simulator: ${simulation ? formatMicros(simulation.retrySpendSavedMicros) : ''} saved over ${asked.get('window')}`,
    );
    startTransition(async () => {
      const answer = await saveStepPolicyAction(undefined, data);
      setConfirming(false);
      toast.show(
        answer.ok
          ? 'Applied as this step’s override: the next begin and finish use it.'
          : `Not applied: ${answer.message}`,
        {
          tone: answer.ok ? 'success' : 'error',
        },
      );
      if (answer.ok) router.refresh();
    });
  };

  return (
    <div data-testid="policy-simulator">
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
        <input type="hidden" name="agent" value={names.agent} />
        <input type="hidden" name="step" value={names.step} />
        <Field label="Over the last" id={`${id}-window`}>
          <Select name="window" size="sm" defaultValue="7d">
            <option value="24h">24 hours</option>
            <option value="7d">7 days</option>
            <option value="30d">30 days</option>
          </Select>
        </Field>
        <Field label="At most attempts" id={`${id}-max`} error={errors?.maxAttempts} className="w-32">
          <Input name="maxAttempts" type="number" min={1} max={100} required size="sm" defaultValue={2} />
        </Field>
        <fieldset className="text-[12px]">
          <legend className="mb-1">Retrying</legend>
          {retriableClasses.map((errorClass) => (
            <label key={errorClass} className="mr-3 inline-flex items-center gap-1">
              <input type="checkbox" name="retriedClasses" value={errorClass} defaultChecked />
              {errorClass}
            </label>
          ))}
        </fieldset>
        <Button type="submit" pending={pending} pendingLabel="Replaying…">
          Simulate
        </Button>
        <FormError result={result} className="w-full" />
      </form>
      {simulation ? (
        <div className="mt-3 text-[13px]" role="status" data-testid="simulation-result">
          <p>
            Of {formatCount(simulation.executions)} execution(s), {formatCount(simulation.stoppedEarlier)} would have
            stopped sooner: <strong>{formatMicros(simulation.retrySpendSavedMicros)}</strong> of retry spend saved (
            {formatCount(simulation.attemptsSaved)} attempt(s)), ending {duration(simulation.timeSavedMs)} sooner in
            all. <strong>{formatCount(simulation.successesLost)}</strong> task(s) that succeeded would have ended failed
            instead.
          </p>
          <p className="mt-1 text-[12px] text-muted" data-testid="simulation-window">
            Executions begun from {formatUtc(new Date(simulation.window.from))} to{' '}
            {formatUtc(new Date(simulation.window.to))}, in whole hours, each with all its attempts; as of the last
            rollup pass (within a minute).
          </p>
          {simulation.byErrorClass.length > 0 ? (
            <table className="mt-2 text-[12px]" data-testid="simulation-by-class">
              <caption className="sr-only">
                What the policy changes, by the class of the failure that stops each execution
              </caption>
              <thead>
                <tr className="text-left text-muted">
                  <th scope="col" className="pr-4 font-medium">
                    Stopped by
                  </th>
                  <th scope="col" className="pr-4 text-right font-medium">
                    Executions
                  </th>
                  <th scope="col" className="pr-4 text-right font-medium">
                    Spend saved
                  </th>
                  <th scope="col" className="pr-4 text-right font-medium">
                    Successes lost
                  </th>
                </tr>
              </thead>
              <tbody>
                {simulation.byErrorClass.map((row) => (
                  <tr key={row.errorClass}>
                    <th scope="row" className="pr-4 text-left font-normal">
                      {row.errorClass}
                    </th>
                    <td className="pr-4 text-right tabular-nums">{formatCount(row.stoppedEarlier)}</td>
                    <td className="pr-4 text-right tabular-nums">{formatMicros(row.retrySpendSavedMicros)}</td>
                    <td className="pr-4 text-right tabular-nums">{formatCount(row.successesLost)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {canApply ? (
            <Button type="button" className="mt-2" onClick={() => setConfirming(true)} pending={pending}>
              Apply as override…
            </Button>
          ) : null}
          <ConfirmDialog
            open={confirming}
            title="Apply this policy to the step?"
            confirmLabel="Apply"
            tone="danger"
            pending={pending}
            onConfirm={apply}
            onCancel={() => setConfirming(false)}
            testId="apply-policy-confirm"
          >
            At most {String(asked?.get('maxAttempts') ?? '')} attempt(s), retrying{' '}
            {asked?.getAll('retriedClasses').join(', ') || 'nothing'}: the next finish of every task of this step uses
            it, running tasks included. {formatCount(simulation.successesLost)} task(s) like those replayed would have
            ended failed.
          </ConfirmDialog>
        </div>
      ) : null}
    </div>
  );
}
