'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, useTransition } from 'react';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { Field } from '@/components/ui/field';
import { refocus, refocusById } from '@/components/console/focus-after-action';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import type { ErrorClassRuleInput } from '@holdfast/engine/traces';
import { type RuleChange, type RuleEditResult, editRulesAction } from './actions';
import { AddRuleForm } from './add-rule-form';
import { ErrorRulesTable } from './error-rules-table';
import { ruleCondition } from './pricing-format';
import { RuleControls } from './rule-controls';

/** The last answer, the table it was based on and who asked: a conflict shows until the page has the new table. */
interface Answer {
  result: RuleEditResult;
  basedOn: string;
  from: 'table' | 'add';
}

/** Where focus goes once an answer is shown (a pressed button was disabled meanwhile, which drops focus). */
type FocusAfter = { rule: number; control: 'up' | 'down' } | 'heading' | 'reset' | 'reason' | 'reload';

const done: Record<RuleChange, (rule: number) => string> = {
  up: (rule) => `Rule ${rule} moved up.`,
  down: (rule) => `Rule ${rule} moved down.`,
  delete: (rule) => `Rule ${rule} deleted.`,
  reset: () => 'The rules are the defaults again.',
};

/**
 * The error class rules for an admin: each change (move, delete, add, reset) saves the whole table,
 * based on the one this page rendered, with the section's one reason.
 */
export function ErrorRulesEditor({
  rules,
  basedOn,
  defaultCount,
  headingId,
}: {
  rules: ErrorClassRuleInput[];
  basedOn: string;
  defaultCount: number;
  headingId: string;
}) {
  const toast = useToast();
  const router = useRouter();
  const [reason, setReason] = useState('');
  const [answer, setAnswer] = useState<Answer>();
  const [pending, startTransition] = useTransition();
  const [deleting, setDeleting] = useState<number>();
  const [resetting, setResetting] = useState(false);
  const [focusAfter, setFocusAfter] = useState<FocusAfter>();
  const table = useRef<HTMLDivElement>(null);
  const reasonInput = useRef<HTMLInputElement>(null);
  const resetButton = useRef<HTMLButtonElement>(null);
  const reloadButton = useRef<HTMLButtonElement>(null);

  const refused = answer?.result.ok === false && answer.basedOn === basedOn ? answer.result : undefined;
  const conflict = refused?.code === 'STATE_CONFLICT';

  useEffect(() => {
    if (pending || !focusAfter) return;
    if (focusAfter === 'heading') refocusById(headingId);
    else if (focusAfter === 'reset') refocus(resetButton.current);
    else if (focusAfter === 'reason') refocus(reasonInput.current);
    else if (focusAfter === 'reload') refocus(reloadButton.current);
    else {
      const row = table.current?.querySelector(`[data-testid="error-rule-${focusAfter.rule}"]`);
      const buttons = [...(row?.querySelectorAll<HTMLButtonElement>('button[data-control]') ?? [])];
      const wanted = buttons.find((button) => button.dataset.control === focusAfter.control && !button.disabled);
      refocus(wanted ?? buttons.find((button) => !button.disabled));
    }
    setFocusAfter(undefined);
  }, [pending, focusAfter, headingId]);

  /** Every answer: a toast, and after a refusal, focus where it can be put right. */
  const answered = (from: Answer['from'], result: RuleEditResult, success: string, after?: FocusAfter) => {
    setAnswer({ result, basedOn, from });
    if (result.ok) {
      toast.show(result.data.changed ? success : 'No change: the table already reads so.', {
        tone: result.data.changed ? 'success' : 'info',
      });
      setFocusAfter(after);
      return;
    }
    const conflicted = result.code === 'STATE_CONFLICT';
    const why = conflicted
      ? 'the rules were changed by someone else.'
      : result.fieldErrors?.reason
        ? 'type a reason above the table.'
        : result.code === 'INVALID_INPUT'
          ? 'check the fields marked in the form.'
          : result.message;
    toast.show(`Not saved: ${why}`, { tone: 'error' });
    setFocusAfter(conflicted ? 'reload' : result.fieldErrors?.reason ? 'reason' : undefined);
  };

  const change = (what: RuleChange, index: number, after: FocusAfter) =>
    startTransition(async () => {
      answered('table', await editRulesAction(what, index, basedOn, reason), done[what](index + 1), after);
    });

  const shown = deleting === undefined ? undefined : rules[deleting];
  return (
    <div className="flex min-w-0 flex-col gap-3">
      <div className="max-w-xl">
        <Field
          id="error-rules-reason"
          label="Reason for changing the rules (kept in the audit log)"
          hint="Needed for every change below: moving, deleting or adding a rule, or a reset."
          error={refused?.fieldErrors?.reason}
          errorTestId="error-rules-error-reason"
        >
          <Input
            ref={reasonInput}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            placeholder="e.g. our gateway says quota_exceeded for rate limits"
            className="w-full"
          />
        </Field>
      </div>
      {conflict ? (
        <div
          role="alert"
          className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded-lg border border-danger px-3 py-2 text-[13px]"
          data-testid="error-rules-conflict"
        >
          <p>The rules were changed by someone else since you loaded the page: reload, then make your change again.</p>
          <Button ref={reloadButton} size="md" onClick={() => router.refresh()}>
            Reload
          </Button>
        </div>
      ) : (
        // The add form shows its own refusals; a reason's is shown on the reason.
        <FormError result={answer?.from === 'table' && !refused?.fieldErrors?.reason ? refused : undefined} />
      )}
      <div ref={table} className="min-w-0">
        <ErrorRulesTable
          rules={rules}
          controls={(index) => (
            <RuleControls
              index={index}
              count={rules.length}
              pending={pending}
              onChange={(move) => change(move, index, { rule: move === 'up' ? index : index + 2, control: move })}
              onDelete={() => setDeleting(index)}
            />
          )}
        />
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <Button ref={resetButton} size="md" disabled={pending} onClick={() => setResetting(true)}>
          Reset to defaults…
        </Button>
        <span className="text-[12px] text-muted">The {defaultCount} rules Holdfast ships with.</span>
      </div>
      <AddRuleForm
        count={rules.length}
        basedOn={basedOn}
        reason={reason}
        onAnswer={(result, added) => answered('add', result, added)}
      />
      <ConfirmDialog
        open={shown !== undefined}
        title={`Delete rule ${(deleting ?? 0) + 1}?`}
        confirmLabel="Delete rule"
        tone="danger"
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => {
          // Closed first: a modal makes the rest of the page inert, and focus must be able to move on.
          setDeleting(undefined);
          change('delete', deleting ?? 0, 'heading');
        }}
        testId={shown ? 'delete-rule-dialog' : undefined}
      >
        {shown ? (
          <span className="[overflow-wrap:anywhere]">
            {ruleCondition(shown)} → {shown.errorClass}. The failures it matched fall to the next rule that matches,
            else <code>unknown</code>. Saved with the reason typed above the table.
          </span>
        ) : null}
      </ConfirmDialog>
      <ConfirmDialog
        open={resetting}
        title="Reset the rules to the defaults?"
        confirmLabel="Reset rules"
        tone="danger"
        onCancel={() => setResetting(false)}
        onConfirm={() => {
          setResetting(false);
          change('reset', 0, 'reset');
        }}
        testId={resetting ? 'reset-rules-dialog' : undefined}
      >
        The {rules.length} rules in the table are replaced by the {defaultCount} default rules. Saved with the reason
        typed above the table.
      </ConfirmDialog>
    </div>
  );
}
