import { randomUUID } from 'node:crypto';
import {
  CallToolResultSchema,
  type CallToolRequest,
  type CallToolResult,
  ErrorCode,
  McpError,
  type ServerNotification,
  type Task,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { createHoldfastClient } from '../..';
import type { HoldfastClient } from '../../client-types';
import { realSleep, type Sleep } from '../step-loop';
import { downstreamNameOf, identifyCall } from './call-identity';
import type { GatewayConfig } from './gateway-config';
import { runGuardedCall } from './guarded-call';
import { argumentsProblem } from './tool-arguments';
import { META_KEY, META_TASK, parseCallMeta, splitMeta } from './meta-fields';
import { loopAnswer, rateLimitedAnswer, refusedAnswer } from './tool-answers';
import { type IdenticalCalls, RateCounter, rateText, SpendCounter, spendText, unitsOf } from './call-limits';
import { GatewayReport } from './gateway-report';
import { ToolControls } from './tool-controls';
import type { McpCallOutcome } from '@holdfast/protocol/inputs/mcp-gateway-report-input';
import { toolPolicy, type ToolRules } from './tool-policy';
import { type ClientSide, Upstream, type UpstreamIdentity } from './upstream';
import { callToolAsUpstreamTask } from './upstream-task-call';

/** How long a starting gateway waits for its first report's answer (the console's controls) before serving. */
const FIRST_REPORT_WAIT_MS = 3_000;
/** Holdfast's longest in-progress TTL (24 hours). */
const MAX_IN_PROGRESS_TTL_MS = 24 * 3_600_000;
/**
 * An attempt is presumed dead this long after the upstream call's timeout: the
 * gateway itself gives up on the call at its timeout, so a claim still held
 * past this margin belongs to a gateway that died.
 */
const TTL_MARGIN_MS = 30_000;

/**
 * Who called: the agent the gateway vouches for (the --agent of a stdio
 * gateway, or the agent of the HTTP client's credential; never the name a
 * client gives itself in initialize), and how to send it progress of this call.
 */
export interface Caller {
  agent: string;
  /** The session's own connection to the server, when it has one (session-server.ts); else the shared one. */
  upstream?: Upstream;
  /** The session's counts, for its rate and its identical calls (absent: no session limits). */
  session?: { key: string; identical: IdenticalCalls };
  /** Present when the client asked for progress (a progressToken in `_meta`). */
  progress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Present when the client asked to run the call as a task (tool-tasks.ts): how long to keep it, and its status. */
  task?: { ttlMs: number; onStatus: (status: Task['status'], message: string | undefined) => void };
}

export interface GatewayOptions {
  /** Another Holdfast client (tests route it as they need). */
  holdfast?: HoldfastClient;
  sleep?: Sleep;
  now?: () => number;
  random?: () => number;
  log?: (line: string) => void;
}

/**
 * The gateway's core, shared by every client session: the upstream connection,
 * the Holdfast client, and what to do with one tools/call. Sessions (one per
 * connected MCP client) are made by session-server.ts and pass their calls here.
 */
export class Gateway {
  private readonly listeners = new Set<(notification: ServerNotification) => void>();
  /** The sessions' own connections (a stdio server process each), closed with the gateway if still open. */
  private readonly sessionUpstreams = new Map<Upstream, Promise<void> | undefined>();
  private readonly rules: ToolRules;
  private readonly rates: RateCounter;
  private readonly spends: SpendCounter;
  /** What became of each call, sent to Holdfast every 30 s (gateway-report.ts). */
  readonly report: GatewayReport;
  /** Each tool's price, rate and identical-call cap: the console's, else the gateway's options (tool-controls.ts). */
  readonly controls: ToolControls;

  private constructor(
    readonly config: GatewayConfig,
    readonly upstream: Upstream,
    readonly identity: UpstreamIdentity,
    private readonly holdfast: HoldfastClient,
    private readonly options: Required<Omit<GatewayOptions, 'holdfast'>>,
  ) {
    this.rates = new RateCounter(options.now);
    this.spends = new SpendCounter(options.now);
    this.controls = new ToolControls(config);
    this.report = new GatewayReport(config, holdfast, options.now, options.log, (controls) =>
      this.controls.replaceConsoleControls(controls),
    );
    this.rules = {
      guard: new Set(config.guard),
      noGuard: new Set(config.noGuard),
      keyless: new Map(Object.entries(config.keyless)),
      keylessDefault: config.keylessDefault,
    };
  }

  /** Connects to the upstream server (its name and capabilities are what the gateway serves). */
  static async start(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
    const log = options.log ?? ((line: string) => console.error(`holdfast-mcp: ${line}`));
    let gateway: Gateway | undefined;
    const upstream = new Upstream(
      config.upstream,
      (notification) => gateway?.broadcast(notification),
      log,
      config.secretEnvNames,
    );
    const identity = await upstream.identity();
    gateway = new Gateway(
      config,
      upstream,
      identity,
      options.holdfast ?? createHoldfastClient({ baseUrl: config.holdfastUrl, token: config.token }),
      {
        sleep: options.sleep ?? realSleep,
        now: options.now ?? Date.now,
        random: options.random ?? Math.random,
        log,
      },
    );
    // The first report's answer brings the console's controls: waited for a moment, so that the first calls meet
    // them, but never for long (a Holdfast that does not answer leaves the gateway's own options in force).
    await Promise.race([
      gateway.report.start(),
      new Promise((resolve) => setTimeout(resolve, FIRST_REPORT_WAIT_MS).unref()),
    ]);
    return gateway;
  }

  /**
   * A connection of a client session's own to the upstream server, for a client that can answer the server's
   * requests (sampling, elicitation, roots) or subscribes to resources: what the server sends on it concerns that
   * client alone. Its notifications go to `onNotification`; the session closes it with `closeSessionUpstream`, and
   * the gateway's close closes those still open (waiting for a stdio server to exit, or stopping it).
   */
  openSessionUpstream(side: ClientSide, onNotification: (notification: ServerNotification) => void): Upstream {
    const upstream = new Upstream(
      this.config.upstream,
      onNotification,
      this.options.log,
      this.config.secretEnvNames,
      side,
    );
    this.sessionUpstreams.set(upstream, undefined);
    return upstream;
  }

  async closeSessionUpstream(upstream: Upstream): Promise<void> {
    // Kept until it has closed: the gateway's close waits for it.
    const closing = upstream.close().catch(() => {});
    this.sessionUpstreams.set(upstream, closing);
    await closing;
    this.sessionUpstreams.delete(upstream);
  }

  /** A session hears the upstream server's notifications until it stops listening. */
  listen(listener: (notification: ServerNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * One tools/call. A tool the server does not list is the caller's error (-32602, as MCP says), and arguments its
   * input schema refuses a tool error the model can read: neither runs anything, records anything or opens a hold
   * (holds are for side effects whose outcome is unknown or that failed for good). An unguarded tool goes straight
   * through and is recorded nowhere; a guarded one is a Holdfast step, named by the tool's policy (tool-policy.ts).
   * The gateway's `_meta` fields never reach the upstream server.
   */
  async callTool(params: CallToolRequest['params'], caller: Caller, signal?: AbortSignal): Promise<CallToolResult> {
    const ended = (outcome: McpCallOutcome) => this.report.count(params.name, outcome);
    return this.answerCall(params, caller, ended, signal);
  }

  private async answerCall(
    params: CallToolRequest['params'],
    caller: Caller,
    ended: (outcome: McpCallOutcome) => void,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    const { ours, forwarded } = splitMeta(params._meta);
    const { progressToken: _progressToken, ...passedMeta } = forwarded ?? {};
    const request = {
      method: 'tools/call' as const,
      params: {
        name: params.name,
        ...(params.arguments === undefined ? {} : { arguments: params.arguments }),
        ...(Object.keys(passedMeta).length > 0 ? { _meta: passedMeta } : {}),
      },
    };
    const onprogress = caller.progress;
    const upstream = caller.upstream ?? this.upstream;
    const timeout = this.config.callTimeoutMs;
    // A call the client made a task goes upstream as a task too, where the server runs the tool that way.
    const task = caller.task;
    const callUpstream = (signal?: AbortSignal) =>
      task && runsAsTask(tool)
        ? callToolAsUpstreamTask(upstream, request, {
            timeoutMs: timeout,
            ttlMs: task.ttlMs,
            onStatus: task.onStatus,
            onprogress,
          })
        : upstream.request(request, CallToolResultSchema, { signal, timeout, onprogress });
    // A tool list that cannot be read guards the call: the safe side when nothing is known of the tool.
    let tool: Tool | undefined;
    let listed = true;
    try {
      // The tools of the connection the call goes on: a server may list more tools to a client that can answer it.
      tool = await upstream.tool(params.name);
    } catch {
      listed = false;
    }
    if (listed && tool === undefined) {
      ended('refused_unknown_tool');
      throw this.unknownTool(params.name);
    }
    const limited = this.overLimits(params, caller);
    if (limited) {
      ended(limited.reason);
      return limited.answer;
    }
    const policy = toolPolicy(this.rules, params.name, tool);
    if (!policy.guarded) {
      ended('passed_through');
      return callUpstream(signal);
    }
    // Checked here for guarded tools only (an unguarded call is the server's to judge, untouched).
    const invalid = tool && argumentsProblem(tool, params.arguments);
    if (invalid) {
      ended('refused_arguments');
      return refusedAnswer(`the arguments do not fit ${params.name}'s input schema: ${invalid}`);
    }

    const meta = parseCallMeta(ours);
    if (!meta.ok) {
      ended('refused_meta');
      return refusedAnswer(meta.problem);
    }
    const keyless = meta.meta.key === undefined && meta.meta.task === undefined;
    if (keyless && policy.keyless === 'refuse') {
      ended('refused_keyless');
      return refusedAnswer(
        `${params.name} runs only when the call names its operation: give _meta "${META_KEY}" (the same key again ` +
          `for a retry of the same operation, a new one for a new operation) or "${META_TASK}"`,
      );
    }
    const agent = caller.agent;
    const identity = identifyCall({
      server: this.config.serverName,
      tool: params.name,
      arguments: params.arguments,
      meta: meta.meta,
      agent,
      keySecret: this.config.keySecret,
      windowMs: this.config.dedupWindowMs,
      nowMs: this.options.now(),
      ...(keyless && policy.keyless === 'always' ? { callId: randomUUID() } : {}),
    });
    const price = this.controls.priceMicros(params.name);
    return runGuardedCall(
      {
        holdfast: this.holdfast,
        owner: this.config.owner,
        server: this.config.serverName,
        tool: params.name,
        maxWaitMs: this.config.maxWaitMs,
        costOf: (result) => this.costOf(params.name, price, result),
        charged: (costMicros) => {
          const limit = this.controls.spendLimit(params.name);
          if (limit) this.spends.add(spendKeyOf(agent, params.name), limit, costMicros);
        },
        ended,
        ...this.options,
      },
      {
        taskId: identity.taskId,
        agent,
        owner: this.config.owner,
        step: identity.step,
        content: identity.content,
        // The server is the call's downstream: a pause of it holds every one of its tools, and the agent's breaker
        // for it opens when its tools keep failing (each tool is a step, with a breaker of its own too).
        downstream: downstreamNameOf(this.config.serverName),
        // A tool with no idempotency of its own: an interrupted call is held as uncertain, never repeated.
        downstreamIdempotent: false,
        inProgressTtlMs: Math.min(this.config.callTimeoutMs + TTL_MARGIN_MS, MAX_IN_PROGRESS_TTL_MS),
        // The tool's price is reserved against the task's spend ceiling before the call, as a model call's estimate.
        estimatedCostMicros: price,
        // Each call is a task of its own: when it succeeds the task is done (an idle task would be frozen).
        final: true,
        ...(this.config.retryAllowance === undefined ? {} : { retryAllowance: this.config.retryAllowance }),
      },
      // The caller's cancellation is not passed on to a guarded call: once sent, it runs to its answer so that
      // the answer is recorded and a repeat replays it, rather than leaving its outcome unknown.
      () => callUpstream(),
    );
  }

  /**
   * What an answered call costs: the tool's price per call, and its price per unit times the units its structured
   * result counts. A result that states no units is charged its price per call, and the gateway says so in its log.
   */
  private costOf(tool: string, price: number, result: CallToolResult): number {
    const perUnit = this.controls.unitPrice(tool);
    if (!perUnit) return price;
    const units = unitsOf(result, perUnit.field);
    if (units === undefined) {
      this.options.log(`${tool}: its result states no number at ${perUnit.field}; only its price per call is counted`);
      return price;
    }
    return price + Math.round(perUnit.micros * units);
  }

  /**
   * The limits a call meets before anything runs: the tool's rate for the agent and for all agents together, what the
   * agent's calls of it may cost, the session's rate, and the cap on identical calls in one session (a model calling
   * a failing tool again and again). Answered as tool errors the model reads: "try again in N s" for a rate or a
   * spend limit, "do not retry" for the cap. Counted in this process's memory.
   */
  private overLimits(
    params: CallToolRequest['params'],
    caller: Caller,
  ): { answer: CallToolResult; reason: 'rate_limited' | 'loop_stopped' } | undefined {
    const spendLimit = this.controls.spendLimit(params.name);
    if (spendLimit) {
      const waitMs = this.spends.check(spendKeyOf(caller.agent, params.name), spendLimit);
      if (waitMs !== undefined) {
        const why = `${params.name} may cost ${spendText(spendLimit)} for agent ${caller.agent}, spent already`;
        return { answer: rateLimitedAnswer(why, waitMs), reason: 'rate_limited' };
      }
    }
    const rate = this.controls.rateLimit(params.name);
    if (rate) {
      const waitMs = this.rates.take(`tool\u0000${caller.agent}\u0000${params.name}`, rate);
      if (waitMs !== undefined) {
        const answer = rateLimitedAnswer(`${params.name} allows ${rateText(rate)} for agent ${caller.agent}`, waitMs);
        return { answer, reason: 'rate_limited' };
      }
    }
    const toolRate = this.controls.toolRateLimit(params.name);
    if (toolRate) {
      const waitMs = this.rates.take(`every agent\u0000${params.name}`, toolRate);
      if (waitMs !== undefined) {
        const answer = rateLimitedAnswer(`${params.name} allows ${rateText(toolRate)} for all agents`, waitMs);
        return { answer, reason: 'rate_limited' };
      }
    }
    const session = caller.session;
    if (!session) return undefined;
    const sessionRate = this.config.sessionRateLimit;
    if (sessionRate) {
      const waitMs = this.rates.take(`session\u0000${session.key}`, sessionRate);
      if (waitMs !== undefined) {
        return {
          answer: rateLimitedAnswer(`this session allows ${rateText(sessionRate)}`, waitMs),
          reason: 'rate_limited',
        };
      }
    }
    const cap = this.controls.maxIdenticalCalls(params.name);
    if (cap > 0 && session.identical.count(params.name, params.arguments) > cap) {
      return { answer: loopAnswer(params.name, cap), reason: 'loop_stopped' };
    }
    return undefined;
  }

  /**
   * Refuses, before a task is made for it, a call that cannot run as a task: a tool the server does not list
   * (-32602), or one the server does not run as a task (-32601, as the server itself answers).
   */
  async checkRunsAsTask(name: string, upstream: Upstream = this.upstream): Promise<void> {
    let tool: Tool | undefined;
    try {
      tool = await upstream.tool(name);
    } catch {
      return; // The call itself finds out, and answers as it does without a task.
    }
    if (tool === undefined) {
      this.report.count(name, 'refused_unknown_tool');
      throw this.unknownTool(name);
    }
    if (!runsAsTask(tool)) {
      throw new McpError(ErrorCode.MethodNotFound, `${name} does not run as a task (its taskSupport is forbidden)`);
    }
  }

  private unknownTool(name: string): McpError {
    return new McpError(
      ErrorCode.InvalidParams,
      `Unknown tool: ${name} (the MCP server ${this.config.serverName} lists no such tool; nothing was run)`,
    );
  }

  async close(): Promise<void> {
    this.listeners.clear();
    // The last counts go to Holdfast before the gateway stops.
    await this.report.stop().catch(() => {});
    await Promise.all([
      this.upstream.close(),
      ...[...this.sessionUpstreams].map(([upstream, closing]) => closing ?? this.closeSessionUpstream(upstream)),
    ]);
  }

  private broadcast(notification: ServerNotification): void {
    for (const listener of this.listeners) listener(notification);
  }
}

/** Whether the server runs a tool as a task when asked (its `execution.taskSupport`). */
function runsAsTask(tool: Tool | undefined): boolean {
  const support = tool?.execution?.taskSupport;
  return support === 'optional' || support === 'required';
}

/** The key of one agent's spend on one tool (SpendCounter). */
const spendKeyOf = (agent: string, tool: string) => `spend\u0000${agent}\u0000${tool}`;
