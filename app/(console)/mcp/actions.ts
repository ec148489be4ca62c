'use server';

import { deleteMcpToolControl, saveMcpToolControl } from '@holdfast/engine/core';
import { type ActionResult, field, runAction } from '@/lib/server/action';

const SHOWN_ON = ['/mcp'];

export interface ToolControlFormValues {
  server: string;
  tool: string;
  priceUsd: string;
  rateCalls: string;
  ratePer: string;
  maxIdenticalCalls: string;
  allAgentsRateCalls: string;
  allAgentsRatePer: string;
  spendLimitUsd: string;
  spendLimitPer: string;
  unitPriceUsd: string;
  unitField: string;
  reason: string;
}

export interface SaveToolControlState {
  result: ActionResult<{ changed: boolean; created: boolean }>;
  /** What was submitted, so a refused form comes back as it was typed. */
  values: ToolControlFormValues;
}

/** A blank field is "the gateway's own option" (null); anything else goes to the library as typed, to be judged. */
const controlNumber = (text: string) => (text.trim() === '' ? null : Number(text));

/** Sets the console's controls for a tool of an MCP server (or `*`); admins only, the library checks and validates. */
export async function saveToolControlAction(
  _previous: SaveToolControlState | undefined,
  formData: FormData,
): Promise<SaveToolControlState> {
  const values: ToolControlFormValues = {
    server: field(formData, 'server'),
    tool: field(formData, 'tool'),
    priceUsd: field(formData, 'priceUsd'),
    rateCalls: field(formData, 'rateCalls'),
    ratePer: field(formData, 'ratePer'),
    maxIdenticalCalls: field(formData, 'maxIdenticalCalls'),
    allAgentsRateCalls: field(formData, 'allAgentsRateCalls'),
    allAgentsRatePer: field(formData, 'allAgentsRatePer'),
    spendLimitUsd: field(formData, 'spendLimitUsd'),
    spendLimitPer: field(formData, 'spendLimitPer'),
    unitPriceUsd: field(formData, 'unitPriceUsd'),
    unitField: field(formData, 'unitField'),
    reason: field(formData, 'reason'),
  };
  const result = await runAction(
    (ctx) =>
      saveMcpToolControl(ctx, {
        server: values.server,
        tool: values.tool,
        priceUsd: controlNumber(values.priceUsd),
        rateCalls: controlNumber(values.rateCalls),
        ratePer: (values.ratePer || 'm') as 's' | 'm' | 'h',
        maxIdenticalCalls: controlNumber(values.maxIdenticalCalls),
        allAgentsRateCalls: controlNumber(values.allAgentsRateCalls),
        allAgentsRatePer: (values.allAgentsRatePer || 'm') as 's' | 'm' | 'h',
        spendLimitUsd: controlNumber(values.spendLimitUsd),
        spendLimitPer: (values.spendLimitPer || 'h') as 'm' | 'h',
        unitPriceUsd: controlNumber(values.unitPriceUsd),
        unitField: values.unitField.trim() === '' ? null : values.unitField,
        reason: values.reason,
      }),
    SHOWN_ON,
  );
  return { result, values };
}

/** Removes a control, with a reason: the gateways use their own option again. */
export async function deleteToolControlAction(formData: FormData): Promise<ActionResult<{ changed: boolean }>> {
  const [server, tool, reason] = ['server', 'tool', 'reason'].map((name) => field(formData, name)) as [
    string,
    string,
    string,
  ];
  return runAction((ctx) => deleteMcpToolControl(ctx, { server, tool, reason }), SHOWN_ON);
}
