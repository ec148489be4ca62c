'use client';

import { ReasonAndSave } from '@/components/console/reason-and-save';
import { type SaveOutcome, useSavedForm } from '@/components/console/use-saved-form';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { type SaveToolControlState, saveToolControlAction, type ToolControlFormValues } from './actions';
import { controlName } from './control-format';

const NEW_CONTROL: ToolControlFormValues = {
  server: '',
  tool: '',
  priceUsd: '',
  rateCalls: '',
  ratePer: 'm',
  maxIdenticalCalls: '',
  reason: '',
};

function outcomeOf({ result, values }: SaveToolControlState): SaveOutcome {
  if (!result.ok)
    return {
      message:
        result.code === 'INVALID_INPUT'
          ? 'Not saved: check the fields marked in the form.'
          : `Not saved: ${result.message}`,
      tone: 'error',
    };
  const name = controlName(values.server.trim(), values.tool.trim());
  if (!result.data.changed) return { message: `No change: ${name} already has these controls.`, tone: 'info' };
  return {
    message: `${result.data.created ? 'Controls set' : 'Controls changed'} for ${name}: the gateways take them within 30 seconds.`,
    tone: 'success',
  };
}

/**
 * Sets a tool's controls, or (with `control`) changes one's. A blank field leaves that control to the gateway's own
 * option; the server's and the tool's names are offered from what the gateways reported.
 */
export function ToolControlForm({
  control,
  servers,
  tools,
}: {
  control?: ToolControlFormValues;
  servers: string[];
  tools: Record<string, string[]>;
}) {
  const { state, submit, pending, refused, errors, saveButton } = useSavedForm(saveToolControlAction, outcomeOf);
  const initial = refused ?? (control ? { ...control, reason: '' } : NEW_CONTROL);
  const toolNames = [...new Set(Object.values(tools).flat())].sort();
  return (
    <form
      id="tool-control-form"
      action={submit}
      className="mt-4 flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
      data-testid="tool-control-form"
      aria-labelledby="tool-control-form-title"
    >
      <h3 id="tool-control-form-title" className="text-[13px] font-medium [overflow-wrap:anywhere]">
        {control
          ? `Change the controls of ${controlName(control.server, control.tool)}`
          : "Set a tool's controls, or change them by its server and name"}
      </h3>
      {control ? (
        <>
          <input type="hidden" name="server" value={control.server} />
          <input type="hidden" name="tool" value={control.tool} />
        </>
      ) : (
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <Field
            id="control-server"
            label="Server"
            hint="As its gateway's --server-name names it"
            error={errors.server}
            errorTestId="control-error-server"
          >
            <Input
              name="server"
              required
              list="control-servers"
              defaultValue={initial.server}
              placeholder="e.g. filesystem"
              onSurface
              className="w-full"
            />
          </Field>
          <Field
            id="control-tool"
            label="Tool"
            hint="As the server lists it; * for every tool without controls of its own"
            error={errors.tool}
            errorTestId="control-error-tool"
          >
            <Input
              name="tool"
              required
              list="control-tools"
              defaultValue={initial.tool}
              placeholder="e.g. write_file, or *"
              onSurface
              className="w-full"
            />
          </Field>
          <datalist id="control-servers">
            {servers.map((server) => (
              <option key={server} value={server} />
            ))}
          </datalist>
          <datalist id="control-tools">
            <option value="*">every tool without controls of its own</option>
            {toolNames.map((tool) => (
              <option key={tool} value={tool} />
            ))}
          </datalist>
        </div>
      )}
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Field
          id="control-priceUsd"
          label="Price per call ($)"
          hint="Blank: the gateway's own"
          error={errors.priceUsd}
          errorTestId="control-error-priceUsd"
        >
          <Input
            name="priceUsd"
            type="number"
            step="any"
            defaultValue={initial.priceUsd}
            onSurface
            className="w-full"
          />
        </Field>
        <Field
          id="control-rateCalls"
          label="Calls per agent"
          hint="Blank: the gateway's own"
          error={errors.rateCalls ?? errors.ratePer}
          errorTestId="control-error-rateCalls"
        >
          <div className="flex gap-2">
            <Input
              name="rateCalls"
              type="number"
              step="1"
              defaultValue={initial.rateCalls}
              onSurface
              className="w-full min-w-0"
            />
            <Select name="ratePer" defaultValue={initial.ratePer} onSurface aria-label="per">
              <option value="s">a second</option>
              <option value="m">a minute</option>
              <option value="h">an hour</option>
            </Select>
          </div>
        </Field>
        <Field
          id="control-maxIdenticalCalls"
          label="Identical calls in a session"
          hint="0: no cap; blank: the gateway's own"
          error={errors.maxIdenticalCalls}
          errorTestId="control-error-maxIdenticalCalls"
        >
          <Input
            name="maxIdenticalCalls"
            type="number"
            step="1"
            defaultValue={initial.maxIdenticalCalls}
            onSurface
            className="w-full"
          />
        </Field>
      </div>
      <ReasonAndSave
        idPrefix="control"
        placeholder="e.g. the vendor bills $0.02 a search"
        defaultValue={initial.reason}
        error={errors.reason}
        saveLabel={control ? 'Save changes' : 'Set controls'}
        pending={pending}
        saveButton={saveButton}
        cancelHref={control ? '/mcp#tool-controls' : undefined}
      />
      <FormError result={state?.result}>
        {state?.result.ok === false && state.result.code === 'INVALID_INPUT' ? 'Check the fields marked above.' : null}
      </FormError>
    </form>
  );
}
