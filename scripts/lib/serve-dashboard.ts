import http from 'node:http';
import next from 'next';

export interface DashboardServer {
  close: () => Promise<void>;
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

  const server = http.createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });

  return {
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
