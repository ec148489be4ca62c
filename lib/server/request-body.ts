import 'server-only';
import type { NextRequest } from 'next/server';

/**
 * A request's body as bytes, read as a stream and abandoned at `maxBytes`,
 * whatever Content-Length says or whether it says anything: `undefined` when it
 * is larger (the caller answers 413).
 */
export async function readBodyBytes(request: NextRequest, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(request.headers.get('content-length') ?? '0') > maxBytes) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks);
}
