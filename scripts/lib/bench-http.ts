import http from 'node:http';

/**
 * A light load generator: node's http client on kept-alive sockets, one per
 * worker (fetch costs the client about a millisecond more per request on this
 * machine, which is the generator's cost, not the API's). Any answer outside
 * 2xx fails the run.
 */
export function httpPoster(baseUrl: string, token: string, connections: number) {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const post = (path: string, body: unknown, retried = false): Promise<Record<string, unknown>> =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const data = JSON.stringify(body);
      const request = http.request(
        {
          host: url.hostname,
          port: url.port,
          path,
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(data),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            if (status < 200 || status >= 300) reject(new Error(`bench: ${path} answered ${status} ${text}`));
            else resolve(JSON.parse(text) as Record<string, unknown>);
          });
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed as idle just as this request went out (a side idles while the
        // others take their rounds, past the server's keep-alive timeout): sent again once, on a new socket, as
        // node's documentation advises. Begin and finish are idempotent, so a second send is safe.
        if (error.code === 'ECONNRESET' && request.reusedSocket && !retried)
          post(path, body, true).then(resolve, reject);
        else reject(error);
      });
      request.end(data);
    });
  return Object.assign(post, { close: () => agent.destroy() });
}
