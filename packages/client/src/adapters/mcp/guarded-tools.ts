import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * Which tools the gateway guards. Annotations are hints a client must not
 * trust, so the default errs on the side of guarding: every tool is guarded
 * unless the server marks it `readOnlyHint: true` (a tool that changes nothing
 * has nothing to repeat). A tool the server does not list is guarded too.
 * The configuration overrides the hint either way, by tool name.
 */
export interface GuardRules {
  /** Always guarded, even when annotated read-only. */
  guard: ReadonlySet<string>;
  /** Never guarded: passed straight through and recorded nowhere. */
  noGuard: ReadonlySet<string>;
}

export function isGuarded(rules: GuardRules, name: string, tool: Tool | undefined): boolean {
  if (rules.guard.has(name)) return true;
  if (rules.noGuard.has(name)) return false;
  return tool?.annotations?.readOnlyHint !== true;
}
