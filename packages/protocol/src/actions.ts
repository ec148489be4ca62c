/** Everything the console and the API let someone do, by name. */
export const actions = [
  'console.read',
  'attempt.record',
  'hold.open',
  'hold.clear',
  'hold.reassign',
  'dead_letter.redrive',
  /** Redriving although the redrive brakes refuse (one redrive, with a reason). */
  'dead_letter.redrive_override',
  'dead_letter.discard',
  /**
   * Settling an uncertain key through its hold: releasing it to run again, or
   * marking it done. Its own action (responders and admins, as a forced lock
   * release) because it decides whether a side effect runs a second time.
   */
  'key.resolve',
  'slot.force_release',
  /**
   * Releasing a stale lock although its guards refuse (its run still looks alive, evidence exists, the
   * kill switch is engaged): a person's judgement that the holder is gone, with a reason.
   */
  'slot.override_release',
  'kill_switch.set',
  /** Pausing and resuming a step, an agent or a downstream (on-call's first brake in a retry storm). */
  'step.pause',
  /** Changing the circuit breakers' settings (window, threshold, minimum volume, rest, probes). */
  'breaker.manage',
  /** Overriding one step's retry policy live (maximum attempts, classes retried, backoff, new tasks' allowance). */
  'retry_policy.manage',
  /** Naming who owns an agent or one of its steps: the owner, the on-call contact, the runbook. */
  'owner.manage',
  /** Creating, changing and deleting the fleet's retry pools. */
  'retry_pool.manage',
  /** Price overrides, the failed-call rule's statuses and the span error class rules (Settings, Costs and errors). */
  'pricing.manage',
  /** Per-tool controls of MCP servers behind Holdfast gateways: a price per call, a rate, a cap on identical calls. */
  'mcp_tools.manage',
  /** Creating, changing and deleting the fleet's spend budgets (per agent, owner, queue, step, downstream, model). */
  'spend_budget.manage',
  'people.manage',
  'api_token.manage',
  /** Changing alert rules' thresholds and the channels alerts go to, and sending a test. */
  'alerts.manage',
  /** Taking a firing alert: "someone on call has it", for a while or until it resolves. */
  'alert.acknowledge',
  /** Silencing alerts by rule, subject and team for a while, with a reason (they are recorded, not sent). */
  'alert.silence',
  /** Ending a silence before its time. */
  'alert.silence.end',
  /** Scraping GET /metrics: a token with the metrics (or read) scope. */
  'metrics.read',
  /** Claiming keys, runs, slot locks, dead-lettering and draining redrives: an agent's own work. */
  'agent.coordinate',
  /** Exporting OpenTelemetry spans to POST /v1/traces: a token with the traces (or ingest) scope. */
  'traces.write',
] as const;
export type Action = (typeof actions)[number];
