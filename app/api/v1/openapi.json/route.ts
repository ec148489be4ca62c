import { type NextRequest, NextResponse } from 'next/server';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { admitAgentToken } from '@/lib/server/api-auth';
import { problemResponse } from '@/lib/server/problem';
import { getCurrentPerson } from '@/lib/server/session';

export const dynamic = 'force-dynamic';

/** The API's OpenAPI 3.1 document, for a signed-in person or any valid API token (within its rate limit). */
export async function GET(request: NextRequest) {
  if (request.headers.get('authorization')) {
    const admitted = await admitAgentToken(request);
    if ('response' in admitted) return admitted.response;
  } else if (!(await getCurrentPerson())) {
    return problemResponse(401, 'UNAUTHENTICATED', 'Sign in, or send a valid API token');
  }
  return NextResponse.json(buildOpenApiDocument(), { headers: { 'cache-control': 'no-store' } });
}
