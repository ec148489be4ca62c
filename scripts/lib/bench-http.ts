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
  const post = (path: string, body: unknown) =>
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
      request.on('error', reject);
      request.end(data);
    });
  return Object.assign(post, { close: () => agent.destroy() });
}
