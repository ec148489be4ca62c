import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback proxy that adds `Authorization: Bearer <secret>` to every request on its way to `target`: the
 * conformance suite cannot send a header, and a listening gateway answers 401 without one. It streams both ways
 * (event streams included). A request naming the proxy itself as its Host is sent on naming the target, any other
 * Host (a DNS-rebinding attempt) as it came, so the gateway's own Host check is what the suite tests.
 */
export async function startBearerProxy(target: string, secret: string): Promise<BearerProxy> {
  const to = new URL(target);
  let own = '';
  const http: HttpServer = createServer((incoming, outgoing) => {
    const host = incoming.headers.host ?? '';
    const ours = host === own || host === own.replace('127.0.0.1', 'localhost');
    const forwarded = httpRequest(
      {
        host: to.hostname,
        port: to.port,
        method: incoming.method,
        path: to.pathname,
        headers: { ...incoming.headers, host: ours ? to.host : host, authorization: `Bearer ${secret}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  own = `127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: `http://${own}${to.pathname}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
