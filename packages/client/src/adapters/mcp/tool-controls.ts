import { EVERY_TOOL, type McpToolControl } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import type { Rate } from './call-limits';
import type { GatewayConfig } from './gateway-config';

/**
 * A tool's controls: its price per call, its rate per agent, the cap on identical calls in a session. Each comes
 * from the most specific place that sets it, the console before the command line at the same place: the console's
 * control for the tool, the gateway's option for the tool (`--tool-price T=`, `--rate-limit T=`), the console's `*`,
 * then the gateway's default (`--tool-price-default`, `--rate-limit *=`, `--max-identical-calls`). The console's
 * controls arrive with each report's answer (gateway-report.ts) and replace the last ones whole.
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
    return (
      this.fromConsole.get(tool)?.rateLimit ??
      this.config.rateLimits[tool] ??
      this.fromConsole.get(EVERY_TOOL)?.rateLimit ??
      this.config.rateLimits[EVERY_TOOL]
    );
  }

  maxIdenticalCalls(tool: string): number {
    return (
      this.fromConsole.get(tool)?.maxIdenticalCalls ??
      this.fromConsole.get(EVERY_TOOL)?.maxIdenticalCalls ??
      this.config.maxIdenticalCalls
    );
  }
}
