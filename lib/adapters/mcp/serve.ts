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
 * 127.0.0.1.
 */
export async function serveGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const gateway = await Gateway.start(config, options);
  let stop: () => Promise<void>;
  let url: string | undefined;
  if (config.listenPort === undefined) {
    const server = createSessionServer(gateway);
    const transport = new StdioServerTransport();
    await server.connect(transport);
    stop = () => server.close();
    // The client closing its end of the pipe is the end of the session, and so of the gateway.
    process.stdin.once('end', () => void close());
  } else {
    const listener = await listenStreamableHttp(config.listenPort, () => createSessionServer(gateway));
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
