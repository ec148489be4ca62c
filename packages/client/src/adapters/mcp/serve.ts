import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Gateway, type GatewayOptions } from './gateway';
import type { GatewayConfig } from './gateway-config';
import { listenStreamableHttp } from './http-listener';
import { createSessionServer } from './session-server';

export interface RunningGateway {
  gateway: Gateway;
  /** Where Streamable HTTP clients connect; absent when the gateway serves stdio. */
  url?: string;
  /** Resolves when the gateway has stopped: its stdio client went away, or close() was called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the gateway: connects to the upstream server, then serves one client
 * over stdio (the client started the gateway) or many over Streamable HTTP on
 * 127.0.0.1, each with a credential from the gateway's --clients file.
 */
export async function serveGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const gateway = await Gateway.start(config, options);
  let stop: () => Promise<void>;
  let url: string | undefined;
  if (config.listenPort === undefined) {
    // The process that started the gateway is its one client, and --agent says whose calls they are.
    const server = createSessionServer(gateway, config.agent);
    const transport = new StdioServerTransport();
    await server.connect(transport);
    stop = () => server.close();
    // The client closing its end of the pipe is the end of the session, and so of the gateway.
    process.stdin.once('end', () => void close());
  } else {
    const listener = await listenStreamableHttp({
      port: config.listenPort,
      clients: config.clients,
      newSession: (client) => createSessionServer(gateway, client.agent),
      maxSessionsPerClient: config.maxSessionsPerClient,
      sessionIdleMs: config.sessionIdleMs,
      now: options.now ?? Date.now,
    });
    url = listener.url;
    stop = () => listener.close();
  }

  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await stop().catch(() => {});
      await gateway.close().catch(() => {});
      resolveClosed();
    })();
    return closing;
  };
  return { gateway, url, closed, close };
}
