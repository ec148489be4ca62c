import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a keyless call of a guarded tool means (a call naming neither `io.holdfast/key` nor `io.holdfast/task`):
 * - `window`: identical calls of one agent inside the deduplication window are one operation (a redelivery
 *   replays; a repeat meant on purpose inside the window replays too, and says so);
 * - `always`: every call is an operation of its own and runs (a toggle, a next page, an increment);
 * - `refuse`: the call is refused until it names its operation, for tools whose repeats must never be guessed.
 */
export const keylessRepeats = ['window', 'always', 'refuse'] as const;
export type KeylessRepeat = (typeof keylessRepeats)[number];

/** One tool's policy, and where each part of it came from (the gateway page and its log say so). */
export interface ToolPolicy {
  /** A guarded call is a Holdfast step; an unguarded one goes straight through and is recorded nowhere. */
  guarded: boolean;
  keyless: KeylessRepeat;
  /** `config`: the gateway's options named the tool; `annotations`: the server's hints decided; `default`. */
  from: 'config' | 'annotations' | 'default';
}

/** The gateway's options about tools (gateway-config.ts), by tool name. */
export interface ToolRules {
  /** Always guarded, even when annotated read-only. */
  guard: ReadonlySet<string>;
  /** Never guarded: passed straight through and recorded nowhere. */
  noGuard: ReadonlySet<string>;
  /** What a keyless repeat means, per tool. */
  keyless: ReadonlyMap<string, KeylessRepeat>;
  /** What it means for a tool neither the options nor its annotations decide. */
  keylessDefault: KeylessRepeat;
}

/**
 * A tool's policy. Annotations are hints a client must not trust, so they only ever relax toward what is safe:
 * a tool is guarded unless the server marks it `readOnlyHint: true` (a tool that changes nothing has nothing to
 * repeat), and an `idempotentHint: true` tool that is not destructive runs every keyless call (running it again
 * changes nothing more, and a repeat meant on purpose is not swallowed). The options override either, by name.
 */
export function toolPolicy(rules: ToolRules, name: string, tool: Tool | undefined): ToolPolicy {
  const configuredKeyless = rules.keyless.get(name);
  const hints = tool?.annotations;
  const hintedKeyless: KeylessRepeat | undefined =
    hints?.idempotentHint === true && hints.destructiveHint !== true ? 'always' : undefined;
  const keyless = configuredKeyless ?? hintedKeyless ?? rules.keylessDefault;
  if (rules.guard.has(name)) return { guarded: true, keyless, from: 'config' };
  if (rules.noGuard.has(name)) return { guarded: false, keyless, from: 'config' };
  const guarded = hints?.readOnlyHint !== true;
  const from = configuredKeyless !== undefined ? 'config' : hints ? 'annotations' : 'default';
  return { guarded, keyless, from };
}
