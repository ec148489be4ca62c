'use server';

import { authorize, type FieldErrors, InvalidInputError, StateConflictError } from '@holdfast/engine/core';
import { deletePriceOverride, savePriceOverride, saveRefusedStatuses } from '@holdfast/engine/core';
import { type ActionResult, field, numberFrom, runAction } from '@/lib/server/action';
import { DEFAULT_ERROR_CLASS_RULES, readErrorClassRules } from '@holdfast/engine/traces';
import { rulesFingerprint, saveErrorClassRules } from '@holdfast/engine/traces';
import type { ErrorClassRuleInput } from '@holdfast/engine/traces';
import { applyRuleEdit, type RuleEdit, toRuleInput } from './rule-edits';

/** Only this page shows the rules: attempts already stored keep their cost and class. */
const SHOWN_ON = ['/settings/pricing'];

/** A cache price: blank is "the input price" (null). */
const cachePriceFrom = (text: string) => (text.trim() === '' ? null : Number(text));

export interface OverrideFormValues {
  provider: string;
  model: string;
  inputPerMillion: string;
  outputPerMillion: string;
  cacheReadPerMillion: string;
  cacheWritePerMillion: string;
  reason: string;
}

export interface SaveOverrideState {
  result: ActionResult<{ changed: boolean; created: boolean }>;
  /** What was submitted, so a refused form comes back as it was typed. */
  values: OverrideFormValues;
}

/** Adds or changes the price override of (provider, model); admins only, the library checks and validates. */
export async function saveOverrideAction(
  _previous: SaveOverrideState | undefined,
  formData: FormData,
): Promise<SaveOverrideState> {
  const values: OverrideFormValues = {
    provider: field(formData, 'provider'),
    model: field(formData, 'model'),
    inputPerMillion: field(formData, 'inputPerMillion'),
    outputPerMillion: field(formData, 'outputPerMillion'),
    cacheReadPerMillion: field(formData, 'cacheReadPerMillion'),
    cacheWritePerMillion: field(formData, 'cacheWritePerMillion'),
    reason: field(formData, 'reason'),
  };
  const result = await runAction(
    (ctx) =>
      savePriceOverride(ctx, {
        provider: values.provider,
        model: values.model,
        inputPerMillion: numberFrom(values.inputPerMillion) as number,
        outputPerMillion: numberFrom(values.outputPerMillion) as number,
        cacheReadPerMillion: cachePriceFrom(values.cacheReadPerMillion),
        cacheWritePerMillion: cachePriceFrom(values.cacheWritePerMillion),
        reason: values.reason,
      }),
    SHOWN_ON,
  );
  return { result, values };
}

/** Deletes an override, with a reason: the model is priced by the bundled table again. */
export async function deleteOverrideAction(formData: FormData): Promise<ActionResult<{ changed: boolean }>> {
  return runAction(
    (ctx) =>
      deletePriceOverride(ctx, {
        provider: field(formData, 'provider'),
        model: field(formData, 'model'),
        reason: field(formData, 'reason'),
      }),
    SHOWN_ON,
  );
}

export interface SaveStatusesState {
  result: ActionResult<{ changed: boolean; statuses: number[] }>;
  values: { statuses: string; reason: string };
}

/** Replaces the failed-call rule's statuses, typed as a list ("400, 401, 429"). */
export async function saveStatusesAction(
  _previous: SaveStatusesState | undefined,
  formData: FormData,
): Promise<SaveStatusesState> {
  const values = { statuses: field(formData, 'statuses'), reason: field(formData, 'reason') };
  const typed = values.statuses.split(/[\s,;]+/).filter(Boolean);
  // Anything but digits is passed on as NaN, which the library refuses; its message is replaced below.
  const statuses = typed.map((text) => (/^\d{1,4}$/.test(text) ? Number(text) : Number.NaN));
  const result = await runAction(async (ctx) => {
    const { changed } = await saveRefusedStatuses(ctx, { statuses, reason: values.reason });
    return { changed, statuses: [...new Set(statuses)].sort((a, b) => a - b) };
  }, SHOWN_ON);
  return { result: nameTypedStatuses(result, typed), values };
}

/** The library names a bad status by its place in the list ("statuses.3"); the form names it by what was typed. */
function nameTypedStatuses<T>(result: ActionResult<T>, typed: string[]): ActionResult<T> {
  if (result.ok || !result.fieldErrors) return result;
  const fieldErrors: FieldErrors = {};
  for (const [name, messages] of Object.entries(result.fieldErrors)) {
    const place = /^statuses\.(\d+)$/.exec(name);
    if (!place) {
      fieldErrors[name] = messages;
      continue;
    }
    const text = typed[Number(place[1])] ?? '';
    const message = /^\d+$/.test(text) ? messages.join(', ') : 'is not a status number';
    (fieldErrors.statuses ??= []).push(`${text}: ${message}`);
  }
  return { ...result, fieldErrors };
}

/**
 * Saves the error class rules after one edit of the table the page showed (`basedOn`, its
 * fingerprint). The edit is applied to the stored table; if that is no longer the one shown, the
 * save is refused (STATE_CONFLICT), as the library refuses it again inside its transaction.
 */
async function saveRuleEdit(edit: RuleEdit, basedOn: string, reason: string): Promise<RuleEditResult> {
  return runAction(async (ctx) => {
    // Who may, before anything is read or compared: a viewer is told that, not about a conflict.
    authorize(ctx, 'pricing.manage');
    const stored = await readErrorClassRules(ctx.db);
    if (rulesFingerprint(stored) !== basedOn)
      throw new StateConflictError(
        'The error class rules were changed by someone else since you loaded the page: reload it and edit again',
      );
    const rules = applyRuleEdit(stored.map(toRuleInput), edit, DEFAULT_ERROR_CLASS_RULES.map(toRuleInput));
    if (!rules) throw new InvalidInputError('Invalid input: no such rule', { rule: ['no such rule'] });
    return saveErrorClassRules(ctx, { rules, basedOn, reason });
  }, SHOWN_ON);
}

export type RuleEditResult = ActionResult<{ changed: boolean; fingerprint: string }>;

/** What a row's button or Reset asks for: move rule `index` (from 0) up or down, delete it, or put back the defaults. */
export type RuleChange = 'up' | 'down' | 'delete' | 'reset';

export async function editRulesAction(
  change: RuleChange,
  index: number,
  basedOn: string,
  reason: string,
): Promise<RuleEditResult> {
  const edit: RuleEdit | undefined =
    change === 'up' || change === 'down'
      ? { kind: 'move', index, by: change === 'up' ? -1 : 1 }
      : change === 'delete'
        ? { kind: 'delete', index }
        : change === 'reset'
          ? { kind: 'reset' }
          : undefined;
  if (!edit) return { ok: false, code: 'INVALID_INPUT', message: 'Invalid input: no such change' };
  return saveRuleEdit(edit, String(basedOn), String(reason));
}

export interface AddRuleFormValues {
  when: string;
  from: string;
  to: string;
  words: string;
  errorClass: string;
  before: string;
}

export interface AddRuleState {
  result: RuleEditResult;
  values: AddRuleFormValues;
}

/** Words are typed comma-separated or one a line. */
const wordsFrom = (text: string) =>
  text
    .split(/[\n,]/)
    .map((word) => word.trim())
    .filter(Boolean);

/** Adds a rule (a status range or words) at the end or before rule N, and saves the whole table. */
export async function addRuleAction(_previous: AddRuleState | undefined, formData: FormData): Promise<AddRuleState> {
  const values: AddRuleFormValues = {
    when: field(formData, 'when'),
    from: field(formData, 'from'),
    to: field(formData, 'to'),
    words: field(formData, 'words'),
    errorClass: field(formData, 'errorClass'),
    before: field(formData, 'before'),
  };
  const before = values.before === '' || values.before === 'end' ? null : Number(values.before) - 1;
  // A blank "to" makes the range the single status "from".
  const to = values.to.trim() === '' ? values.from : values.to;
  const rule = (
    values.when === 'words'
      ? { when: 'words', words: wordsFrom(values.words), errorClass: values.errorClass }
      : { when: 'status', from: numberFrom(values.from), to: numberFrom(to), errorClass: values.errorClass }
  ) as ErrorClassRuleInput;
  const result = await saveRuleEdit(
    { kind: 'add', rule, before },
    field(formData, 'basedOn'),
    field(formData, 'reason'),
  );
  return { result: addFormErrors(result, values), values };
}

/**
 * The new rule's errors are named by its place in the table ("rules.0.from", "rules.6.words.2"): the
 * form names its own fields, and says "is required" or "must be a number" rather than zod's wording.
 */
function addFormErrors(result: RuleEditResult, values: AddRuleFormValues): RuleEditResult {
  if (result.ok || !result.fieldErrors) return result;
  const fieldErrors: FieldErrors = {};
  for (const [name, messages] of Object.entries(result.fieldErrors)) {
    const own = /^rules\.\d+\.(\w+)/.exec(name);
    const key = own ? own[1]! : name;
    // A blank "to" was taken as "from": its errors are said once, on "from".
    if (key === 'to' && values.to.trim() === '' && result.fieldErrors[name.replace(/\.to$/, '.from')]) continue;
    const typed =
      key === 'from' || key === 'to'
        ? key === 'to' && values.to.trim() === ''
          ? values.from
          : values[key]
        : undefined;
    const worded = messages.map((message) =>
      typed !== undefined && message.includes('expected number')
        ? typed.trim() === ''
          ? 'is required'
          : 'must be a number'
        : message,
    );
    (fieldErrors[key] ??= []).push(...worded);
  }
  return { ...result, fieldErrors };
}
