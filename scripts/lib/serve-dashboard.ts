import http from 'node:http';
import next from 'next';

export interface DashboardServer {
  /**
   * Stops taking connections at once and closes the idle ones; requests in
   * flight get up to `drainMs` to finish (an aborted `signal` ends the wait
   * early), then their connections are closed too. Resolves with how many
   * requests were cut off that way.
   */
  close: (options: { drainMs: number; signal?: AbortSignal }) => Promise<{ cutOff: number }>;
}

/**
 * Serves the Next.js dashboard inside this process rather than as a child,
 * so that a killed `npm start` cannot leave a web server behind holding the port.
 */
export async function serveDashboard(options: {
  projectRoot: string;
  host: string;
  port: number;
  dev: boolean;
}): Promise<DashboardServer> {
  const app = next({ dev: options.dev, dir: options.projectRoot, hostname: options.host, port: options.port });
  const handle = app.getRequestHandler();
  await app.prepare();

  const inFlight = new Set<http.ServerResponse>();
  let closing = false;
  const server = http.createServer((request, response) => {
    inFlight.add(response);
    response.once('close', () => {
      inFlight.delete(response);
      // A response whose headers went out before the drain kept its keep-alive; close the
      // connection as soon as it is idle rather than when its keep-alive timeout runs out.
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
    // A request that reached us during the drain, on a connection opened before it, is the last on that connection.
    if (closing) response.setHeader('connection', 'close');
    void handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });

  return {
    close: async ({ drainMs, signal }) => {
      closing = true;
      // Node keeps a connection alive after a response unless told otherwise, even once the server is closing.
      for (const response of inFlight) if (!response.headersSent) response.setHeader('connection', 'close');
      // close() stops listening and closes the idle keep-alive connections; it calls back once the last one is gone.
      const allClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const timeUp = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, signal?.aborted ? 0 : drainMs);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([allClosed, timeUp]);
      clearTimeout(timer);
      const cutOff = inFlight.size;
      server.closeAllConnections();
      await allClosed;
      await app.close();
      return { cutOff };
    },
  };
}
