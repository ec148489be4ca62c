/** The console's areas, in the order the sidebar lists them. */
export interface ConsoleArea {
  href: string;
  label: string;
  /** What the area is for, in a sentence. */
  purpose: string;
}

export const consoleAreas: ConsoleArea[] = [
  { href: '/', label: 'Overview', purpose: 'Retry rate and retry spend per step for a time window.' },
  {
    href: '/agents',
    label: 'Agents',
    purpose:
      "What each agent costs: its steps' attempts, retries and spend summed, its owner, and what of its work waits.",
  },
  {
    href: '/steps',
    label: 'Steps',
    purpose:
      'Every step with its retry rate, retry-attributable spend, error classes and latency, sortable and filterable.',
  },
  {
    href: '/errors',
    label: 'Errors',
    purpose:
      'Failures grouped by cause (step, error class and error pattern), with counts, trend, first and last seen, and their dead letters.',
  },
  {
    href: '/holds',
    label: 'Holds',
    purpose: 'Parked work waiting for a person, with its machine-readable reason and owner, to clear or discard.',
  },
  {
    href: '/dead-letters',
    label: 'Dead letters',
    purpose: 'Work whose retries ran out, with its payload and last error, to redrive once the cause is fixed.',
  },
  {
    href: '/pauses',
    label: 'Pauses',
    purpose:
      'Steps, agents and downstreams paused by on-call, why and by whom, the begins each holds back, and resume.',
  },
  {
    href: '/locks',
    label: 'Locks',
    purpose: 'Slot locks with their run keys and fencing tokens, and stale ones to release under guard.',
  },
  {
    href: '/keys',
    label: 'Keys',
    purpose: 'Idempotency keys with their status, stored result and expiries, including uncertain outcomes.',
  },
  {
    href: '/alerts',
    label: 'Alerts',
    purpose:
      'Alert rules and their thresholds, the webhook and Slack channels alerts go to, and every notification sent.',
  },
  {
    href: '/audit',
    label: 'Audit',
    purpose: 'The append-only record of every operator and sweeper action: who, what, when, why, before and after.',
  },
  {
    href: '/ingest',
    label: 'Ingest',
    purpose:
      "What became of the spans exporters sent, per service: counted as calls, tries or runs, refused, or ignored and why; and each agent's runs.",
  },
  {
    href: '/mcp',
    label: 'MCP gateways',
    purpose:
      "What the MCP gateways did with each tool's calls: run, replayed, refused and why, rate-limited; what the tools cost; the gateways themselves.",
  },
  {
    href: '/settings/retry-pools',
    label: 'Retry pools',
    purpose: 'Fleet-wide caps on retries per agent or step, with how much room each has left and what it refused.',
  },
  {
    href: '/settings/budgets',
    label: 'Spend budgets',
    purpose:
      'What the fleet may spend per hour, day or month, by agent, owner, queue, step or downstream; and what is used.',
  },
  {
    href: '/settings/pricing',
    label: 'Costs and errors',
    purpose:
      'Negotiated model prices, the statuses of model calls that cost nothing, and the error classes of failed spans.',
  },
  { href: '/settings/people', label: 'People', purpose: 'Who may use the console, with their roles and teams.' },
  { href: '/settings/tokens', label: 'API tokens', purpose: 'Credentials for agents calling the HTTP API.' },
  {
    href: '/settings/api',
    label: 'API reference',
    purpose: 'The endpoints agents call, their fields and answers, from the OpenAPI document.',
  },
];
