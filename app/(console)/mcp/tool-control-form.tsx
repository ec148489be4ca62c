'use client';

import { fieldsOf, SettingsForm } from '@/components/console/settings-form';
import { type Saved, type SaveOutcome, useSavedForm } from '@/components/console/use-saved-form';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { InputField } from '@/components/ui/input-field';
import { Select } from '@/components/ui/select';
import { type SaveToolControlState, saveToolControlAction, type ToolControlFormValues } from './actions';
import type { McpGatewaysView } from '@/lib/queries/mcp-gateways';
import { controlName } from './control-format';

const NEW_CONTROL: ToolControlFormValues = {
  server: '',
  tool: '',
  priceUsd: '',
  rateCalls: '',
  ratePer: 'm',
  maxIdenticalCalls: '',
  allAgentsRateCalls: '',
  allAgentsRatePer: 'm',
  spendLimitUsd: '',
  spendLimitPer: 'h',
  unitPriceUsd: '',
  unitField: '',
  reason: '',
};

function outcomeOf({ result, values }: Saved<SaveToolControlState>): SaveOutcome {
  const name = controlName(values.server.trim(), values.tool.trim());
  if (!result.data.changed) return { message: `No change: ${name} already has these controls.`, tone: 'info' };
  return {
    message: `${result.data.created ? 'Controls set' : 'Controls changed'} for ${name}: the gateways take them within 30 seconds.`,
    tone: 'success',
  };
}

/** The form's fields: what each is called and what a blank means. */
const OWN = "Blank: the gateway's own";
const FIELDS = {
  server: { label: 'Server', hint: "As its gateway's --server-name names it" },
  tool: { label: 'Tool', hint: 'As the server lists it; * for every tool without controls of its own' },
  priceUsd: { label: 'Price per call ($)', hint: OWN },
  rateCalls: { label: 'Calls per agent', hint: OWN },
  maxIdenticalCalls: { label: 'Identical calls in a session', hint: "0: no cap; blank: the gateway's own" },
  allAgentsRateCalls: { label: 'Calls, all agents together', hint: OWN },
  spendLimitUsd: { label: 'Spend per agent ($)', hint: OWN },
  unitPriceUsd: { label: 'Price per unit ($)', hint: "Of the result's field below; blank: the gateway's own" },
  unitField: { label: 'Result field counting units', hint: 'e.g. segments' },
} as const;

/** A number and its period, one field: either's error is said under both. */
function AmountPerPeriod({
  name,
  per,
  value,
  perValue,
  error,
  periods,
  step,
}: {
  name: 'rateCalls' | 'allAgentsRateCalls' | 'spendLimitUsd';
  per: string;
  value: string;
  perValue: string;
  error?: string[];
  periods: readonly ('s' | 'm' | 'h')[];
  step: string;
}) {
  const words = { s: 'a second', m: 'a minute', h: 'an hour' } as const;
  return (
    <Field {...FIELDS[name]} id={`control-${name}`} error={error} errorTestId={`control-error-${name}`}>
      <div className="flex gap-2">
        <Input name={name} type="number" step={step} defaultValue={value} onSurface className="w-full min-w-0" />
        <Select name={per} defaultValue={perValue} onSurface aria-label="per">
          {periods.map((period) => (
            <option key={period} value={period}>
              {words[period]}
            </option>
          ))}
        </Select>
      </div>
    </Field>
  );
}

/**
 * Sets a tool's controls, or (with `control`) changes one's. A blank field leaves that control to the gateway's own
 * option; the server's and the tool's names are offered from what the gateways reported.
 */
export function ToolControlForm({
  control,
  view: { knownServers: servers, knownTools: tools },
}: {
  control?: ToolControlFormValues;
  /** The servers and tools the gateways reported, offered as the form's choices. */
  view: Pick<McpGatewaysView, 'knownServers' | 'knownTools'>;
}) {
  const form = useSavedForm(saveToolControlAction, outcomeOf);
  const { errors } = form;
  const initial = form.refused ?? (control ? { ...control, reason: '' } : NEW_CONTROL);
  const toolNames = [...new Set(Object.values(tools).flat())].sort();
  const named = fieldsOf('control', FIELDS, initial, errors);
  const amountPerPeriod = (
    name: 'rateCalls' | 'allAgentsRateCalls' | 'spendLimitUsd',
    per: 'ratePer' | 'allAgentsRatePer' | 'spendLimitPer',
    periods: readonly ('s' | 'm' | 'h')[],
    step: string,
  ) => (
    <AmountPerPeriod
      name={name}
      per={per}
      value={initial[name]}
      perValue={initial[per]}
      error={errors[name] ?? errors[per]}
      periods={periods}
      step={step}
    />
  );
  return (
    <SettingsForm
      id="tool-control-form"
      title={
        control
          ? `Change the controls of ${controlName(control.server, control.tool)}`
          : "Set a tool's controls, or change them by its server and name"
      }
      form={form}
      reason={initial.reason}
      save={{
        idPrefix: 'control',
        placeholder: 'e.g. the vendor bills $0.02 a search',
        label: control ? 'Save changes' : 'Set controls',
        cancelHref: control ? '/mcp#tool-controls' : undefined,
      }}
    >
      {control ? (
        <>
          <input type="hidden" name="server" value={control.server} />
          <input type="hidden" name="tool" value={control.tool} />
        </>
      ) : (
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <InputField {...named('server')} required list="control-servers" placeholder="e.g. filesystem" />
          <InputField {...named('tool')} required list="control-tools" placeholder="e.g. write_file, or *" />
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
        <InputField {...named('priceUsd')} type="number" step="any" />
        {amountPerPeriod('rateCalls', 'ratePer', ['s', 'm', 'h'], '1')}
        <InputField {...named('maxIdenticalCalls')} type="number" step="1" />
        {amountPerPeriod('allAgentsRateCalls', 'allAgentsRatePer', ['s', 'm', 'h'], '1')}
        {amountPerPeriod('spendLimitUsd', 'spendLimitPer', ['m', 'h'], 'any')}
        <div className="grid grid-cols-2 gap-2">
          <InputField {...named('unitPriceUsd')} type="number" step="any" />
          <InputField {...named('unitField')} />
        </div>
      </div>
    </SettingsForm>
  );
}
