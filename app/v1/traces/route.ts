import type { NextRequest } from 'next/server';
import { receiveTraces } from '@/lib/server/traces-endpoint';

export const dynamic = 'force-dynamic';

/** OTLP/HTTP traces receiver (token scope: traces or ingest): point an exporter's traces endpoint here. */
export async function POST(request: NextRequest): Promise<Response> {
  return receiveTraces(request);
}
