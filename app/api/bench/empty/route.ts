import { getEnvironment } from '@holdfast/engine/env';
import { problemResponse } from '@/lib/server/problem';

export const dynamic = 'force-dynamic';

/**
 * The empty route: with HOLDFAST_BENCH_EMPTY_ROUTE=on it answers `{}` and does nothing else (no token, no body,
 * no database), on the same path through the server as the step endpoints, so `npm run bench:peers` can show
 * what the HTTP server and Next.js cost a request on their own. Off (the default) it is not there: a
 * deployment has no use for it, and an API that answers without a token invites being probed.
 */
export async function POST(): Promise<Response> {
  if (getEnvironment().HOLDFAST_BENCH_EMPTY_ROUTE !== 'on')
    return problemResponse(404, 'NOT_FOUND', 'There is no such route');
  return Response.json({}, { headers: { 'cache-control': 'no-store' } });
}
