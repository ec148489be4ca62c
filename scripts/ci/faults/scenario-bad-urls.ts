import http from 'node:http';
import { runChecks, type Check } from './checks';

/**
 * Broken percent-encoding and NUL in paths and query strings, sent as raw
 * bytes over HTTP (fetch would normalise them), to the API, the console's
 * route handlers and a page: never a 5xx (a 4xx, a redirect to sign in, or
 * for the health check, which reads no parameters, its usual 200).
 */
const PATHS = [
  '/api/v1/step-stats?window=%00',
  '/api/v1/step-stats?window=%E0%A4%A',
  '/api/v1/step-stats?window=%',
  '/api/v1/step-stats?%E0%A4%A=24h',
  '/api/v1/%E0%A4%A',
  '/api/v1/attempts/%00',
  '/api/console/step-stats?window=%00',
  '/api/console/overview?window=%E0%A4%A',
  '/api/console/audit.csv?actor=%E0%A4%A',
  '/api/console/audit.csv?actor=%00',
  '/api/console/bulk-redrives/%E0%A4%A',
  '/api/console/bulk-redrives/%00',
  '/api/health?x=%E0%A4%A',
  '/dead-letters?queue=%E0%A4%A',
  '/%E0%A4%A',
];

function rawGet(baseUrl: string, path: string, token: string): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { hostname, port, path, method: 'GET', headers: { authorization: `Bearer ${token}` }, timeout: 15_000 },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end();
  });
}

export async function badUrls(baseUrl: string, readToken: string): Promise<Check[]> {
  const answers: Record<string, number | string> = {};
  for (const path of PATHS)
    answers[path] = await rawGet(baseUrl, path, readToken).catch((error: Error) => error.message);
  return runChecks(
    'broken percent-encoding over HTTP',
    PATHS.map((path) => {
      const status = answers[path];
      return [`GET ${path} never answers 5xx`, typeof status === 'number' && status >= 200 && status < 500, status] as [
        string,
        boolean,
        unknown,
      ];
    }),
  );
}
