import { type NextRequest, NextResponse } from 'next/server';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { authenticateApiToken } from '@/lib/core';
import { getDb } from '@/lib/server/db';
import { problemResponse } from '@/lib/server/problem';
import { getCurrentPerson } from '@/lib/server/session';

export const dynamic = 'force-dynamic';

/** The API's OpenAPI 3.1 document, for a signed-in person or any valid API token. */
export async function GET(request: NextRequest) {
  const authorization = request.headers.get('authorization');
  const allowed = authorization ? await authenticateApiToken(getDb(), authorization) : await getCurrentPerson();
  if (!allowed) return problemResponse(401, 'UNAUTHENTICATED', 'Sign in, or send a valid API token');
  return NextResponse.json(buildOpenApiDocument(), { headers: { 'cache-control': 'no-store' } });
}
