import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { agentName, NAME_PATTERN } from '@holdfast/protocol/names';
import { type ClientCredential, MIN_SECRET_LENGTH, parseClientCredentials } from './client-credentials';
import type { UpstreamTarget } from './upstream';
import { type KeylessRepeat, keylessRepeats } from './tool-policy';
import { parseRate, type Rate, type SpendRate, type UnitPrice } from './call-limits';

/** Everything the gateway runs with, read from its command line and environment (gateway-config.ts). */
export interface GatewayConfig {
  holdfastUrl: string;
  token: string;
  /** The upstream server's stable name: the first part of every step (`<server>:<tool>`) and key. */
  serverName: string;
  /** Who gets the holds of this server's tools: `team:<name>` or `person:<email>`. */
  owner: string;
  /** The secret that seals the task ids the gateway derives (call-identity.ts), from HOLDFAST_MCP_KEY_SECRET. */
  keySecret: string;
  /** Over stdio: the agent every call is recorded for (with --listen, each client's own, from --clients). */
  agent: string;
  guard: string[];
  noGuard: string[];
  /** What a keyless call of a tool means (tool-policy.ts), per tool, from --keyless TOOL=MODE. */
  keyless: Record<string, KeylessRepeat>;
  /** For the tools neither --keyless nor their annotations decide (--keyless-default). */
  keylessDefault: KeylessRepeat;
  /** What one answered call of a tool costs, in micro-dollars (--tool-price TOOL=USD), by tool. */
  toolPrices: Record<string, number>;
  /** The same for every other tool (--tool-price-default USD; 0 when not given). */
  defaultToolPriceMicros: number;
  /**
   * What each unit a tool's result counts costs, by tool (--tool-unit-price TOOL=USD:FIELD): the number at FIELD of
   * its structured result (a message's segments, a search's results), priced beside its price per call.
   */
  toolUnitPrices: Record<string, UnitPrice>;
  /** Calls of a tool one agent may make, by tool (`*`: each tool without a rate of its own), --rate-limit. */
  rateLimits: Record<string, Rate>;
  /** Calls of a tool all agents together may make, by tool (`*`: each tool without one), --tool-rate-limit. */
  toolRateLimits: Record<string, Rate>;
  /** What one agent's calls of a tool may cost, by tool (`*`: each tool without one), --spend-limit TOOL=USD/h. */
  spendLimits: Record<string, SpendRate>;
  /** Calls one client session may make, of any tool (--session-rate-limit). */
  sessionRateLimit?: Rate;
  /** The most times one session may call a tool with the same arguments (--max-identical-calls; 0: no cap). */
  maxIdenticalCalls: number;
  /** Streamable HTTP on 127.0.0.1 at this port (0: any free port); absent: stdio. */
  listenPort?: number;
  /** With --listen: who may call, and as which agent (client-credentials.ts). */
  clients: ClientCredential[];
  /** With --listen: the most sessions one client may have open; past it an initialize is refused. */
  maxSessionsPerClient: number;
  /** With --listen: a session with no request open for this long is ended. */
  sessionIdleMs: number;
  /** Environment variables that hold the gateway's secrets: a stdio server it starts is not given them. */
  secretEnvNames: string[];
  upstream: UpstreamTarget;
  /** Calls with neither key nor task: identical calls inside one window of this length are one operation. */
  dedupWindowMs: number;
  /** The longest a guarded call waits in the gateway (in flight elsewhere, backoff, pool) before "try again". */
  maxWaitMs: number;
  /** The longest the gateway waits for the upstream server's answer; after it the outcome is unknown. */
  callTimeoutMs: number;
  /** Retries each call's task may make (Holdfast's default when absent). */
  retryAllowance?: number;
}

export const DEFAULTS = {
  agent: 'mcp-gateway',
  maxIdenticalCalls: 25,
  maxSessionsPerClient: 100,
  sessionIdleMs: 30 * 60_000,
  dedupWindowMs: 5 * 60_000,
  maxWaitMs: 30_000,
  callTimeoutMs: 60_000,
};

/** Room under Holdfast's 100-character step name for the tool's name after `<server>:`. */
const MAX_SERVER_NAME = 40;

export const USAGE = `Usage: holdfast-mcp --holdfast-url URL --server-name NAME --owner team:NAME [options] (-- COMMAND [ARGS...] | --upstream-url URL)

Puts Holdfast in front of an MCP server: every guarded tools/call becomes a Holdfast step.
The API token (scope ingest) comes from the environment variable HOLDFAST_TOKEN, and the secret
that seals the gateway's task ids (${MIN_SECRET_LENGTH} characters or more, the same for every
gateway of one server) from HOLDFAST_MCP_KEY_SECRET.

  --holdfast-url URL       where Holdfast listens (or HOLDFAST_URL)
  --server-name NAME       the upstream server's stable name in steps and keys
  --owner OWNER            who gets this server's holds: team:<name> or person:<email>
  --agent NAME             over stdio: the agent of every call (default ${DEFAULTS.agent})
  --guard TOOL[,TOOL]      guard these tools even if annotated read-only (repeatable)
  --no-guard TOOL[,TOOL]   pass these tools straight through (repeatable)
  --keyless TOOL=MODE      what a call naming no io.holdfast/key or task means for TOOL (repeatable):
                           window (identical calls in one window are one operation), always (each
                           call runs), refuse (the call must name its operation)
  --keyless-default MODE   the same for every other tool (default window; an idempotent,
                           non-destructive tool by its annotations: always)
  --tool-price TOOL=USD    what one call of TOOL costs when the server answers it (repeatable):
                           counted in the task's spend and the fleet's figures
  --tool-price-default USD the same for every other tool (default 0)
  --tool-unit-price TOOL=USD:FIELD  what each unit costs that TOOL's structured result counts at FIELD
                           (e.g. send_sms=0.0079:segments), beside its price per call (repeatable)
  --rate-limit TOOL=N/s|m|h  calls of TOOL one agent may make per second, minute or hour (repeatable;
                           TOOL * for each tool without a rate of its own)
  --tool-rate-limit TOOL=N/s|m|h  calls of TOOL all agents together may make (repeatable; TOOL * as above)
  --spend-limit TOOL=USD/m|h  what one agent's calls of TOOL may cost per minute or hour, from their prices
                           (repeatable; TOOL * as above)
  --session-rate-limit N/s|m|h  calls one client session may make, of any tool
  --max-identical-calls N  the most times one session may call a tool with the same arguments
                           (loop detection; default ${DEFAULTS.maxIdenticalCalls}, 0: no cap)
  --listen 127.0.0.1:PORT  serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio
  --clients FILE           with --listen (required): the clients, their agents and secrets (JSON)
  --max-sessions-per-client N  with --listen: sessions one client may have open (default ${DEFAULTS.maxSessionsPerClient})
  --session-idle-ms MS     with --listen: a session idle this long is ended (default ${DEFAULTS.sessionIdleMs})
  --upstream-url URL       the upstream server's Streamable HTTP endpoint, instead of -- COMMAND
  --upstream-bearer-env VAR  with --upstream-url: send Authorization: Bearer <the value of VAR>
  --upstream-header NAME=VAR  with --upstream-url: send header NAME with the value of VAR (repeatable)
  --dedup-window-ms MS     calls with no key or task: the deduplication window (default ${DEFAULTS.dedupWindowMs})
  --max-wait-ms MS         longest wait inside one call before "try again" (default ${DEFAULTS.maxWaitMs})
  --call-timeout-ms MS     longest wait for the upstream's answer (default ${DEFAULTS.callTimeoutMs})
  --retry-allowance N      retries each call may make (default: Holdfast's, 5)
`;

export class ConfigError extends Error {}

/**
 * Reads the command line (node:util parseArgs). Everything after `--` is the
 * upstream server's command, so its own options are never read as the gateway's.
 */
export function parseGatewayArgs(
  argv: string[],
  env: Record<string, string | undefined>,
  readText: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): GatewayConfig {
  const split = argv.indexOf('--');
  const ours = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 ? [] : argv.slice(split + 1);
  let values: ReturnType<typeof parse>;
  try {
    values = parse(ours);
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }

  const token = env.HOLDFAST_TOKEN?.trim();
  if (!token) throw new ConfigError('HOLDFAST_TOKEN is not set: the gateway needs an API token with the ingest scope');
  const keySecret = env.HOLDFAST_MCP_KEY_SECRET?.trim();
  if (!keySecret || keySecret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      `HOLDFAST_MCP_KEY_SECRET must hold a random secret of at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -hex 32), the same for every gateway of one server: it makes the gateway's task ids impossible for another agent to work out and take first`,
    );
  }
  const holdfastUrl = values['holdfast-url'] ?? env.HOLDFAST_URL;
  if (!holdfastUrl) throw new ConfigError('--holdfast-url (or HOLDFAST_URL) is required');
  if (!URL.canParse(holdfastUrl)) throw new ConfigError(`--holdfast-url ${holdfastUrl} is not a URL`);

  const serverName = required(values['server-name'], '--server-name');
  if (!NAME_PATTERN.test(serverName) || serverName.includes(':') || serverName.length > MAX_SERVER_NAME) {
    throw new ConfigError(
      `--server-name must be 1 to ${MAX_SERVER_NAME} letters, digits and _ . - (starting with a letter or digit)`,
    );
  }
  const owner = required(values.owner, '--owner');
  if (!/^(team|person):\S+$/.test(owner)) throw new ConfigError('--owner must be team:<name> or person:<email>');
  const listening = values.listen !== undefined;
  if (listening && values.agent !== undefined) {
    throw new ConfigError("--agent is for stdio: with --listen each client's agent is given in --clients");
  }
  if (!listening) {
    for (const option of ['clients', 'max-sessions-per-client', 'session-idle-ms'] as const) {
      if (values[option] !== undefined) throw new ConfigError(`--${option} is for --listen`);
    }
  }
  if (listening && values.clients === undefined) {
    throw new ConfigError(
      '--listen needs --clients FILE: every client connecting over HTTP proves who it is with a secret, and its agent comes from there',
    );
  }
  const agent = values.agent ?? DEFAULTS.agent;
  if (!agentName.safeParse(agent).success) {
    throw new ConfigError('--agent must be 1 to 100 letters, digits and _ . : - (starting with a letter or digit)');
  }

  const guard = toolList(values.guard);
  const noGuard = toolList(values['no-guard']);
  const both = guard.filter((tool) => noGuard.includes(tool));
  if (both.length > 0) throw new ConfigError(`--guard and --no-guard both name ${both.join(', ')}`);
  const keyless = keylessChoices(values.keyless);
  const keylessDefault = keylessMode(values['keyless-default'] ?? 'window', '--keyless-default');
  const toolPrices = toolPriceChoices(values['tool-price']);
  const rateLimits = rateChoices(values['rate-limit'], '--rate-limit');
  const toolRateLimits = rateChoices(values['tool-rate-limit'], '--tool-rate-limit');
  const spendLimits = spendChoices(values['spend-limit']);
  const toolUnitPrices = unitPriceChoices(values['tool-unit-price']);
  const sessionRateLimit =
    values['session-rate-limit'] === undefined
      ? undefined
      : rateOf(values['session-rate-limit'], '--session-rate-limit');
  const defaultToolPriceMicros =
    values['tool-price-default'] === undefined
      ? 0
      : dollarsToMicros(values['tool-price-default'], '--tool-price-default');

  if (values['upstream-url'] !== undefined && command.length > 0) {
    throw new ConfigError('give the upstream server once: --upstream-url URL or -- COMMAND, not both');
  }
  let upstream: UpstreamTarget;
  const upstreamHeaders = upstreamHeadersOf(values['upstream-header'], values['upstream-bearer-env'], env);
  if (values['upstream-url'] !== undefined) {
    if (!URL.canParse(values['upstream-url'])) throw new ConfigError('--upstream-url is not a URL');
    upstream = {
      kind: 'http',
      url: values['upstream-url'],
      ...(upstreamHeaders.headers ? { headers: upstreamHeaders.headers } : {}),
    };
  } else if (command.length > 0) {
    if (upstreamHeaders.headers) {
      throw new ConfigError(
        '--upstream-header and --upstream-bearer-env are for --upstream-url: a server the gateway starts gets its environment',
      );
    }
    upstream = { kind: 'stdio', command: command[0]!, args: command.slice(1) };
  } else {
    throw new ConfigError('no upstream server: end with -- COMMAND [ARGS...] or give --upstream-url URL');
  }

  let clients: ClientCredential[] = [];
  const clientSecretEnvs: string[] = [];
  if (values.clients !== undefined) {
    let text: string;
    try {
      text = readText(values.clients);
    } catch (error) {
      throw new ConfigError(
        `--clients ${values.clients} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    try {
      clients = parseClientCredentials(text, env);
    } catch (error) {
      throw new ConfigError(`--clients ${values.clients}: ${error instanceof Error ? error.message : String(error)}`);
    }
    clientSecretEnvs.push(...secretEnvNamesOf(text));
  }

  return {
    holdfastUrl,
    token,
    keySecret,
    serverName,
    owner,
    agent,
    guard,
    noGuard,
    keyless,
    keylessDefault,
    toolPrices,
    defaultToolPriceMicros,
    toolUnitPrices,
    rateLimits,
    toolRateLimits,
    spendLimits,
    sessionRateLimit,
    maxIdenticalCalls:
      values['max-identical-calls'] === undefined
        ? DEFAULTS.maxIdenticalCalls
        : wholeNumber(values['max-identical-calls'], '--max-identical-calls', 0, 1_000_000),
    listenPort: values.listen === undefined ? undefined : loopbackPort(values.listen),
    clients,
    maxSessionsPerClient:
      values['max-sessions-per-client'] === undefined
        ? DEFAULTS.maxSessionsPerClient
        : wholeNumber(values['max-sessions-per-client'], '--max-sessions-per-client', 1, 10_000),
    sessionIdleMs: milliseconds(values['session-idle-ms'], '--session-idle-ms', DEFAULTS.sessionIdleMs, 1_000),
    secretEnvNames: ['HOLDFAST_TOKEN', 'HOLDFAST_MCP_KEY_SECRET', ...clientSecretEnvs, ...upstreamHeaders.envNames],
    upstream,
    dedupWindowMs: milliseconds(values['dedup-window-ms'], '--dedup-window-ms', DEFAULTS.dedupWindowMs, 1_000),
    maxWaitMs: milliseconds(values['max-wait-ms'], '--max-wait-ms', DEFAULTS.maxWaitMs, 0),
    callTimeoutMs: milliseconds(values['call-timeout-ms'], '--call-timeout-ms', DEFAULTS.callTimeoutMs, 1_000),
    retryAllowance:
      values['retry-allowance'] === undefined
        ? undefined
        : wholeNumber(values['retry-allowance'], '--retry-allowance', 0, 1_000),
  };
}

function parse(args: string[]) {
  return parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      'holdfast-url': { type: 'string' },
      'server-name': { type: 'string' },
      owner: { type: 'string' },
      agent: { type: 'string' },
      guard: { type: 'string', multiple: true },
      'no-guard': { type: 'string', multiple: true },
      keyless: { type: 'string', multiple: true },
      'keyless-default': { type: 'string' },
      'tool-price': { type: 'string', multiple: true },
      'tool-price-default': { type: 'string' },
      'rate-limit': { type: 'string', multiple: true },
      'tool-rate-limit': { type: 'string', multiple: true },
      'spend-limit': { type: 'string', multiple: true },
      'tool-unit-price': { type: 'string', multiple: true },
      'session-rate-limit': { type: 'string' },
      'max-identical-calls': { type: 'string' },
      listen: { type: 'string' },
      clients: { type: 'string' },
      'max-sessions-per-client': { type: 'string' },
      'session-idle-ms': { type: 'string' },
      'upstream-url': { type: 'string' },
      'upstream-header': { type: 'string', multiple: true },
      'upstream-bearer-env': { type: 'string' },
      'dedup-window-ms': { type: 'string' },
      'max-wait-ms': { type: 'string' },
      'call-timeout-ms': { type: 'string' },
      'retry-allowance': { type: 'string' },
    },
  }).values;
}

/** The variables a clients file names (already read and checked by parseClientCredentials). */
function secretEnvNamesOf(text: string): string[] {
  const { clients } = JSON.parse(text) as { clients: { secretEnv?: string }[] };
  return clients.flatMap((client) => (client.secretEnv === undefined ? [] : [client.secretEnv]));
}

function required(value: string | undefined, option: string): string {
  if (value === undefined || value.trim() === '') throw new ConfigError(`${option} is required`);
  return value.trim();
}

/** `--guard a,b --guard c`: one list. */
function toolList(values: string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((value) => value.split(','))
    .map((tool) => tool.trim())
    .filter((tool) => tool !== '');
}

/** `--keyless charge=refuse --keyless next_page=always`: each tool once, each mode one the gateway knows. */
function keylessChoices(values: string[] | undefined): Record<string, KeylessRepeat> {
  const chosen: Record<string, KeylessRepeat> = {};
  for (const value of values ?? []) {
    const split = value.lastIndexOf('=');
    const tool = split > 0 ? value.slice(0, split).trim() : '';
    if (tool === '') throw new ConfigError(`--keyless ${value}: give TOOL=MODE (MODE ${keylessRepeats.join(', ')})`);
    if (Object.hasOwn(chosen, tool)) throw new ConfigError(`--keyless names ${tool} twice`);
    chosen[tool] = keylessMode(value.slice(split + 1).trim(), `--keyless ${tool}`);
  }
  return chosen;
}

/** `--tool-price search=0.002`: each tool once, a price in US dollars to the micro-dollar. */
function toolPriceChoices(values: string[] | undefined): Record<string, number> {
  const prices: Record<string, number> = {};
  for (const value of values ?? []) {
    const split = value.lastIndexOf('=');
    const tool = split > 0 ? value.slice(0, split).trim() : '';
    if (tool === '') throw new ConfigError(`--tool-price ${value}: give TOOL=USD (e.g. search=0.002)`);
    if (Object.hasOwn(prices, tool)) throw new ConfigError(`--tool-price names ${tool} twice`);
    prices[tool] = dollarsToMicros(value.slice(split + 1).trim(), `--tool-price ${tool}`);
  }
  return prices;
}

/**
 * The headers for an upstream that needs credentials, each value read from the gateway's environment (never the
 * command line, which any local user may read), and the variables that held them (withheld from a server it starts).
 */
function upstreamHeadersOf(
  given: string[] | undefined,
  bearerEnv: string | undefined,
  env: Record<string, string | undefined>,
): { headers?: Record<string, string>; envNames: string[] } {
  const pairs = (given ?? []).map((value) => {
    const split = value.indexOf('=');
    const name = split > 0 ? value.slice(0, split).trim() : '';
    if (!/^[A-Za-z0-9-]+$/.test(name)) throw new ConfigError(`--upstream-header ${value}: give NAME=ENV_VAR`);
    return [name, value.slice(split + 1).trim()] as const;
  });
  if (bearerEnv !== undefined) pairs.push(['Authorization', bearerEnv]);
  if (pairs.length === 0) return { envNames: [] };
  const headers: Record<string, string> = {};
  for (const [name, variable] of pairs) {
    const value = env[variable]?.trim();
    if (!value) throw new ConfigError(`the upstream header ${name} is read from ${variable}, which is not set`);
    headers[name] = name === 'Authorization' && variable === bearerEnv ? `Bearer ${value}` : value;
  }
  return { headers, envNames: pairs.map(([, variable]) => variable) };
}

/** `--rate-limit charge=30/m --rate-limit *=600/h` (or --tool-rate-limit): each tool once. */
function rateChoices(values: string[] | undefined, option: string): Record<string, Rate> {
  return perTool(values, option, 'N/s|m|h (e.g. charge=30/m, or *=600/h)', (value, tool) =>
    rateOf(value, `${option} ${tool}`),
  );
}

/** `--spend-limit search=0.50/h`: each tool once, dollars per minute or hour. */
function spendChoices(values: string[] | undefined): Record<string, SpendRate> {
  return perTool(values, '--spend-limit', 'USD/m|h (e.g. search=0.50/h)', (value, tool) => {
    const match = /^([^/]+)\/(m|h)$/.exec(value);
    const micros = match ? dollarsToMicros(match[1]!, `--spend-limit ${tool}`) : 0;
    if (!match || micros === 0) {
      throw new ConfigError(`--spend-limit ${tool} must be USD/m or USD/h above 0 (not ${value})`);
    }
    return { micros, periodMs: match[2] === 'm' ? 60_000 : 3_600_000 };
  });
}

/** `--tool-unit-price send_sms=0.0079:segments`: each tool once, a price per unit and the result's field counting them. */
function unitPriceChoices(values: string[] | undefined): Record<string, UnitPrice> {
  return perTool(values, '--tool-unit-price', 'USD:FIELD (e.g. send_sms=0.0079:segments)', (value, tool) => {
    const split = value.lastIndexOf(':');
    const field = split > 0 ? value.slice(split + 1).trim() : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(field)) {
      throw new ConfigError(`--tool-unit-price ${tool} must end :FIELD, a field of the tool's structured result`);
    }
    return { micros: dollarsToMicros(value.slice(0, split).trim(), `--tool-unit-price ${tool}`), field };
  });
}

/** `OPTION TOOL=VALUE`, repeatable, each tool once, each value read by `read`. */
function perTool<Value>(
  values: string[] | undefined,
  option: string,
  shape: string,
  read: (value: string, tool: string) => Value,
): Record<string, Value> {
  const chosen: Record<string, Value> = {};
  for (const value of values ?? []) {
    const split = value.indexOf('=');
    const tool = split > 0 ? value.slice(0, split).trim() : '';
    if (tool === '') throw new ConfigError(`${option} ${value}: give TOOL=${shape}`);
    if (Object.hasOwn(chosen, tool)) throw new ConfigError(`${option} names ${tool} twice`);
    chosen[tool] = read(value.slice(split + 1).trim(), tool);
  }
  return chosen;
}

function rateOf(value: string, option: string): Rate {
  const rate = parseRate(value);
  if (!rate) throw new ConfigError(`${option} must be N/s, N/m or N/h with N a whole number above 0 (not ${value})`);
  return rate;
}

/** Dollars as written ("0.002", "1.5") to whole micro-dollars; at most 6 decimals and $1,000 a call. */
function dollarsToMicros(value: string, option: string): number {
  const match = /^(\d{1,4})(?:\.(\d{1,6}))?$/.exec(value);
  const micros = match ? Number(match[1]) * 1_000_000 + Number((match[2] ?? '').padEnd(6, '0')) : Number.NaN;
  if (!Number.isSafeInteger(micros) || micros > 1_000_000_000) {
    throw new ConfigError(`${option} must be US dollars from 0 to 1000 with at most 6 decimals (not ${value})`);
  }
  return micros;
}

function keylessMode(value: string, option: string): KeylessRepeat {
  const mode = keylessRepeats.find((each) => each === value);
  if (!mode) throw new ConfigError(`${option} must be one of ${keylessRepeats.join(', ')} (not ${value})`);
  return mode;
}

/** The gateway serves 127.0.0.1 only: a tool that moves money is not for the network to call. */
function loopbackPort(listen: string): number {
  const match = /^127\.0\.0\.1:(\d{1,5})$/.exec(listen);
  const port = match ? Number(match[1]) : Number.NaN;
  if (!match || port > 65_535)
    throw new ConfigError('--listen must be 127.0.0.1:PORT (the gateway serves loopback only)');
  return port;
}

function milliseconds(value: string | undefined, option: string, fallback: number, minimum: number): number {
  return value === undefined ? fallback : wholeNumber(value, option, minimum, 24 * 3_600_000);
}

function wholeNumber(value: string, option: string, minimum: number, maximum: number): number {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < minimum || number > maximum) {
    throw new ConfigError(`${option} must be a whole number from ${minimum} to ${maximum}`);
  }
  return number;
}
