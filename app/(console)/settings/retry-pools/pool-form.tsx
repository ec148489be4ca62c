'use client';

import { useRef, useState } from 'react';
import { ReasonAndSave } from '@/components/console/reason-and-save';
import { type Saved, type SaveOutcome, useSavedForm } from '@/components/console/use-saved-form';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { formatCount } from '@/lib/console/format';
import { poolScope } from '@/components/retry-pools/pool-format';
import { type PoolFormValues, type SavePoolState, savePoolAction } from './actions';

/** A new pool starts from Finagle's and Envoy's default share (20%) and a small floor. */
const NEW_POOL: PoolFormValues = {
  agent: '',
  step: '',
  budgetPercent: '20',
  minRetriesPerSecond: '0.1',
  windowSeconds: '60',
  reason: '',
};

/** The numbers as they stand in the form. */
function readNumbers(form: HTMLFormElement) {
  const data = new FormData(form);
  const text = (name: string) => String(data.get(name) ?? '');
  return {
    budgetPercent: text('budgetPercent'),
    minRetriesPerSecond: text('minRetriesPerSecond'),
    windowSeconds: text('windowSeconds'),
  };
}

type PoolNumbers = Pick<PoolFormValues, 'budgetPercent' | 'minRetriesPerSecond' | 'windowSeconds'>;

/** The numbers read as a pool (the floor as whole retries per window), or undefined while one is unreadable. */
function readPool(values: PoolNumbers) {
  const percent = Number(values.budgetPercent);
  const floor = Number(values.minRetriesPerSecond);
  const window = Number(values.windowSeconds);
  const readable = [values.budgetPercent, values.minRetriesPerSecond, values.windowSeconds].every(
    (text) => text.trim() !== '',
  );
  if (!readable || ![percent, floor, window].every((value) => Number.isFinite(value) && value >= 0) || window === 0)
    return undefined;
  return { percent, window, floorRetries: Math.floor(floor * window + 1e-9) };
}

/** A pool of 0 % with a floor below one retry per window lets no retry through at all. */
const allowsNoRetries = (pool: { percent: number; floorRetries: number }) =>
  pool.percent === 0 && pool.floorRetries === 0;

/** What the numbers mean together, as the admin types them. */
function describePool(values: PoolNumbers): string | undefined {
  const pool = readPool(values);
  if (!pool) return undefined;
  if (allowsNoRetries(pool))
    return 'No retry may run at all: every retry in its scope waits (RETRY_BUDGET_EXHAUSTED) until the pool changes.';
  return `In any ${formatCount(pool.window)} s, retries may be ${formatCount(pool.percent)}% of that window's first attempts plus ${formatCount(pool.floorRetries)}; beyond that a retry waits (RETRY_BUDGET_EXHAUSTED).`;
}

/** What the toast says about a save. */
function outcomeOf({ result, values }: Saved<SavePoolState>): SaveOutcome {
  const scope = poolScope({ agent: values.agent.trim(), step: values.step.trim() || '*' });
  if (result.data.created) return { message: `Pool added for ${scope}.`, tone: 'success' };
  if (result.data.changed) return { message: `Pool changed for ${scope}.`, tone: 'success' };
  return { message: `No change: the pool of ${scope} already has these values.`, tone: 'info' };
}

/** Adds a pool, or (with `pool`) changes the budget, floor and window of one; every change needs a reason. */
export function PoolForm({ pool }: { pool?: PoolFormValues & { id: number } }) {
  const { state, submit, pending, refused, errors, saveButton } = useSavedForm(savePoolAction, outcomeOf);
  const initial = refused ?? (pool ? { ...pool, reason: '' } : NEW_POOL);
  const [summary, setSummary] = useState(() => describePool(initial));
  // After each answer React resets the form to `initial`: the summary follows it.
  const [answered, setAnswered] = useState(state);
  if (answered !== state) {
    setAnswered(state);
    setSummary(describePool(initial));
  }
  const form = useRef<HTMLFormElement>(null);
  // A pool that lets no retry through is saved only after the admin confirms it: it stops every retry in scope.
  const [confirmingNoRetries, setConfirmingNoRetries] = useState(false);
  const noRetriesConfirmed = useRef(false);
  return (
    <form
      ref={form}
      id="pool-form"
      action={submit}
      onSubmit={(event) => {
        const numbers = readPool(readNumbers(event.currentTarget));
        if (numbers && allowsNoRetries(numbers) && !noRetriesConfirmed.current) {
          event.preventDefault();
          setConfirmingNoRetries(true);
        }
        noRetriesConfirmed.current = false;
      }}
      onInput={(event) => setSummary(describePool(readNumbers(event.currentTarget)))}
      className="mb-5 flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      data-testid="pool-form"
      aria-labelledby="pool-form-title"
    >
      <h2 id="pool-form-title" className="text-[13px] font-medium">
        {pool ? `Change the pool of ${poolScope(pool)}` : 'Add a pool, or change one by its agent and step'}
      </h2>
      <div className={`grid grid-cols-1 gap-3 sm:grid-cols-2 ${pool ? 'lg:grid-cols-3' : 'lg:grid-cols-5'}`}>
        {pool ? (
          <>
            <input type="hidden" name="agent" value={pool.agent} />
            <input type="hidden" name="step" value={pool.step} />
          </>
        ) : (
          <>
            <Field id="pool-agent" label="Agent" error={errors.agent} errorTestId="pool-error-agent">
              <Input
                name="agent"
                required
                defaultValue={initial.agent}
                placeholder="e.g. outreach"
                onSurface
                className="w-full"
              />
            </Field>
            <Field
              id="pool-step"
              label="Step"
              hint="Blank or * for all steps"
              error={errors.step}
              errorTestId="pool-error-step"
            >
              <Input
                name="step"
                defaultValue={initial.step === '*' ? '' : initial.step}
                placeholder="all steps"
                onSurface
                className="w-full"
              />
            </Field>
          </>
        )}
        <Field
          id="pool-budgetPercent"
          label="Budget (% of first attempts)"
          error={errors.budgetPercent}
          errorTestId="pool-error-budgetPercent"
        >
          <Input
            name="budgetPercent"
            type="number"
            required
            min={0}
            max={1000}
            step="any"
            defaultValue={initial.budgetPercent}
            onSurface
            className="w-full"
          />
        </Field>
        <Field
          id="pool-minRetriesPerSecond"
          label="Floor (retries per second)"
          error={errors.minRetriesPerSecond}
          errorTestId="pool-error-minRetriesPerSecond"
        >
          <Input
            name="minRetriesPerSecond"
            type="number"
            required
            min={0}
            max={1000}
            step="any"
            defaultValue={initial.minRetriesPerSecond}
            onSurface
            className="w-full"
          />
        </Field>
        <Field
          id="pool-windowSeconds"
          label="Window (seconds)"
          hint="10 to 86,400"
          error={errors.windowSeconds}
          errorTestId="pool-error-windowSeconds"
        >
          <Input
            name="windowSeconds"
            type="number"
            required
            min={10}
            max={86400}
            step={1}
            defaultValue={initial.windowSeconds}
            onSurface
            className="w-full"
          />
        </Field>
      </div>
      <p className="text-[12px] text-muted [overflow-wrap:anywhere]" data-testid="pool-summary">
        {summary ?? 'Enter a budget, a floor and a window to see what they allow.'}
      </p>
      <ReasonAndSave
        idPrefix="pool"
        placeholder="e.g. payments outage became a retry storm"
        defaultValue={initial.reason}
        error={errors.reason}
        saveLabel={pool ? 'Save changes' : 'Save pool'}
        pending={pending}
        saveButton={saveButton}
        cancelHref={pool ? '/settings/retry-pools' : undefined}
        result={state?.result}
      />
      <ConfirmDialog
        open={confirmingNoRetries}
        title="Save a pool that allows no retries?"
        confirmLabel="Save anyway"
        tone="danger"
        onConfirm={() => {
          noRetriesConfirmed.current = true;
          setConfirmingNoRetries(false);
          form.current?.requestSubmit();
        }}
        onCancel={() => setConfirmingNoRetries(false)}
        testId="pool-no-retries-confirm"
      >
        <p>
          With a budget of 0 % and a floor below one retry a window, every retry in this pool&apos;s scope waits until
          the pool changes: first attempts still run, and their retries wait.
        </p>
      </ConfirmDialog>
    </form>
  );
}
