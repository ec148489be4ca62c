import { randomUUID } from 'node:crypto';
import {
  MAX_REPORT_COUNTS,
  type McpCallOutcome,
  type McpGatewayReportInput,
} from '@holdfast/protocol/inputs/mcp-gateway-report-input';
import type { McpToolControl } from '@holdfast/protocol/inputs/mcp-tool-control-input';
import type { HoldfastClient } from '../../client-types';
import type { GatewayConfig } from './gateway-config';

/** The gateway's version, as its reports and its name towards the upstream server say it. */
export const GATEWAY_VERSION = '0.1.0';
/** How often the gateway reports (and so how stale the console's gateway page may be). */
export const REPORT_INTERVAL_MS = 30_000;
/** Unknown tool names counted by name in one report; the rest are counted as OTHER_UNKNOWN_TOOLS. */
const MAX_UNKNOWN_NAMES = 20;
const OTHER_UNKNOWN_TOOLS = '(other unknown tools)';
/** Counts kept while Holdfast cannot be reached; past it new kinds of count are dropped, and said so in the log. */
const MAX_PENDING_COUNTS = 5_000;

/**
 * What became of each tools/call, counted in memory by tool and outcome and sent to Holdfast every 30 seconds and
 * when the gateway stops (POST /api/v1/mcp-gateways/report), with what this instance is: so the console shows the
 * calls the gateway answered itself (replays, refusals, rate limits) beside the steps Holdfast recorded. A report
 * that fails keeps its counts for the next. Each answer carries the console's controls for the server (a report is
 * how the gateway hears of them; one that fails leaves the last ones in force).
 */
export class GatewayReport {
  readonly instanceId = randomUUID();
  private readonly startedAt: string;
  private counts = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private sending: Promise<void> | undefined;

  constructor(
    private readonly config: GatewayConfig,
    private readonly holdfast: HoldfastClient,
    now: () => number,
    private readonly log: (line: string) => void,
    /** Told the console's controls for the server with each report's answer. */
    private readonly onControls: (controls: McpToolControl[]) => void = () => {},
  ) {
    this.startedAt = new Date(now()).toISOString();
  }

  count(tool: string, outcome: McpCallOutcome): void {
    // A tool name the server does not list is the caller's to choose: a few are kept by name (a misspelling shows
    // on the console), the rest counted together, so a client cannot fill the report with names.
    const named =
      outcome === 'refused_unknown_tool' &&
      !this.counts.has(`${tool}\u0000${outcome}`) &&
      this.unknownNames() >= MAX_UNKNOWN_NAMES
        ? OTHER_UNKNOWN_TOOLS
        : tool;
    const key = `${named}\u0000${outcome}`;
    if (!this.counts.has(key) && this.counts.size >= MAX_PENDING_COUNTS) {
      this.log(
        `report: more than ${MAX_PENDING_COUNTS} kinds of count wait to be sent; ${tool} ${outcome} not counted`,
      );
      return;
    }
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  private unknownNames(): number {
    let names = 0;
    for (const key of this.counts.keys()) if (key.endsWith('\u0000refused_unknown_tool')) names += 1;
    return names;
  }

  /** Reports now and every 30 seconds; resolves when the first report is answered (or failed). */
  start(): Promise<void> {
    this.timer ??= setInterval(() => void this.send(), REPORT_INTERVAL_MS);
    this.timer.unref();
    return this.send();
  }

  /** Sends what is counted now (one report at a time); the counts of a report that fails wait for the next. */
  send(): Promise<void> {
    this.sending ??= this.sendNow().finally(() => {
      this.sending = undefined;
    });
    return this.sending;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.sending;
    await this.send();
  }

  private async sendNow(): Promise<void> {
    const taken = this.counts;
    this.counts = new Map();
    const entries = [...taken].slice(0, MAX_REPORT_COUNTS);
    // Beyond one report's room: kept for the next.
    for (const [key, calls] of [...taken].slice(MAX_REPORT_COUNTS)) this.counts.set(key, calls);
    const report: McpGatewayReportInput = {
      instanceId: this.instanceId,
      serverName: this.config.serverName,
      version: GATEWAY_VERSION,
      startedAt: this.startedAt,
      config: configSummary(this.config),
      counts: entries.map(([key, calls]) => {
        const [tool, outcome] = key.split('\u0000') as [string, McpCallOutcome];
        return { tool: tool.slice(0, 200), outcome, calls };
      }),
    };
    let answer: { controls?: McpToolControl[] };
    try {
      answer = await this.holdfast.reportMcpGateway(report);
    } catch (error) {
      for (const [key, calls] of entries) this.counts.set(key, (this.counts.get(key) ?? 0) + calls);
      this.log(`report: not sent (${error instanceof Error ? error.message : String(error)}); kept for the next`);
      return;
    }
    // A Holdfast older than the console's controls answers without them: the gateway's own options stay in force.
    if (Array.isArray(answer.controls)) this.onControls(answer.controls);
  }
}

/** The options the gateway runs with, as the console shows them: never a secret, nor a URL's path or query. */
export function configSummary(config: GatewayConfig): Record<string, string | number | boolean> {
  const list = (values: string[] | Record<string, unknown>) =>
    (Array.isArray(values) ? values : Object.entries(values).map(([tool, value]) => `${tool}=${describe(value)}`))
      .join(', ')
      .slice(0, 200);
  return {
    upstream:
      config.upstream.kind === 'http'
        ? `http ${new URL(config.upstream.url).host}`
        : `stdio ${config.upstream.command}`.slice(0, 200),
    transport: config.listenPort === undefined ? 'stdio' : 'streamable http',
    owner: config.owner,
    guard: list(config.guard),
    noGuard: list(config.noGuard),
    keyless: list(config.keyless),
    keylessDefault: config.keylessDefault,
    toolPrices: list(config.toolPrices),
    toolUnitPrices: list(config.toolUnitPrices),
    rateLimits: list(config.rateLimits),
    toolRateLimits: list(config.toolRateLimits),
    spendLimits: list(config.spendLimits),
    sessionRateLimit: config.sessionRateLimit ? describe(config.sessionRateLimit) : 'none',
    maxIdenticalCalls: config.maxIdenticalCalls,
    dedupWindowMs: config.dedupWindowMs,
    maxWaitMs: config.maxWaitMs,
    callTimeoutMs: config.callTimeoutMs,
    retryAllowance: config.retryAllowance ?? 'default',
  };
}

function describe(value: unknown): string {
  const per = (periodMs: number) => (periodMs === 1_000 ? 's' : periodMs === 60_000 ? 'm' : 'h');
  if (typeof value === 'object' && value !== null && 'calls' in value && 'periodMs' in value) {
    const rate = value as { calls: number; periodMs: number };
    return `${rate.calls}/${per(rate.periodMs)}`;
  }
  if (typeof value === 'object' && value !== null && 'micros' in value && 'periodMs' in value) {
    const spend = value as { micros: number; periodMs: number };
    return `${spend.micros / 1_000_000}/${per(spend.periodMs)}`;
  }
  if (typeof value === 'object' && value !== null && 'micros' in value && 'field' in value) {
    const unit = value as { micros: number; field: string };
    return `${unit.micros / 1_000_000}:${unit.field}`;
  }
  return String(value);
}
