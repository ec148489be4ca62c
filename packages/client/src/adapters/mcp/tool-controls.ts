import { EVERY_TOOL, type McpToolControl } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import type { Rate, SpendRate, UnitPrice } from './call-limits';
import type { GatewayConfig } from './gateway-config';

/**
 * A tool's controls: its price per call, its rate per agent, the cap on identical calls in a session. Each comes
 * from the most specific place that sets it, the console before the command line at the same place: the console's
 * control for the tool, the gateway's option for the tool (`--tool-price T=`, `--rate-limit T=`), the console's `*`,
 * then the gateway's default (`--tool-price-default`, `--rate-limit *=`, `--max-identical-calls`). The console's
 * controls arrive with each report's answer (gateway-report.ts) and replace the last ones whole. A tool's rate for
 * all agents, its spend limit per agent and its price per unit are the gateway's options alone.
 */
export class ToolControls {
  private fromConsole = new Map<string, McpToolControl>();

  constructor(private readonly config: GatewayConfig) {}

  replaceConsoleControls(controls: McpToolControl[]): void {
    this.fromConsole = new Map(controls.map((control) => [control.tool, control]));
  }

  priceMicros(tool: string): number {
    return (
      this.fromConsole.get(tool)?.priceMicros ??
      this.config.toolPrices[tool] ??
      this.fromConsole.get(EVERY_TOOL)?.priceMicros ??
      this.config.defaultToolPriceMicros
    );
  }

  rateLimit(tool: string): Rate | undefined {
    return this.mostSpecific(tool, 'rateLimit', this.config.rateLimits);
  }

  /** Calls of the tool all agents together may make. */
  toolRateLimit(tool: string): Rate | undefined {
    return this.mostSpecific(tool, 'allAgentsRateLimit', this.config.toolRateLimits);
  }

  /** What one agent's calls of the tool may cost per window. */
  spendLimit(tool: string): SpendRate | undefined {
    return this.mostSpecific(tool, 'spendLimit', this.config.spendLimits);
  }

  /** A limit from the console's control for the tool, the option for it, the console's `*`, the option's `*`. */
  private mostSpecific<Key extends 'rateLimit' | 'allAgentsRateLimit' | 'spendLimit', Value>(
    tool: string,
    control: Key,
    option: Record<string, Value>,
  ): NonNullable<McpToolControl[Key]> | Value | undefined {
    return (
      this.fromConsole.get(tool)?.[control] ??
      option[tool] ??
      this.fromConsole.get(EVERY_TOOL)?.[control] ??
      option[EVERY_TOOL]
    );
  }

  /** The tool's price per unit its result counts, if it has one (a `*` price per unit would name one field for all). */
  unitPrice(tool: string): UnitPrice | undefined {
    return this.fromConsole.get(tool)?.unitPrice ?? this.config.toolUnitPrices[tool];
  }

  maxIdenticalCalls(tool: string): number {
    return (
      this.fromConsole.get(tool)?.maxIdenticalCalls ??
      this.fromConsole.get(EVERY_TOOL)?.maxIdenticalCalls ??
      this.config.maxIdenticalCalls
    );
  }
}
