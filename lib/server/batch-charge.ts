import 'server-only';
import type { AuthenticatedToken } from '@holdfast/engine/core';
import { chargeAgentToken } from './api-auth';

/**
 * What an export batch pays of its token's rate limit: one request for every BYTES_PER_CHARGED_REQUEST of its
 * body or every SPANS_PER_CHARGED_REQUEST of its spans, whichever is more. It pays as soon as each is known: for
 * its bytes before the body is read (by Content-Length) and again once inflated, for its spans once counted.
 * So a batch the token cannot pay for is refused before the work its size would cost, not after: the work a
 * token makes the instance do is what the rate limit meters. An OpenTelemetry SDK's batch of 512 ordinary
 * spans (about 0.5 MiB) pays for its spans: 52 requests.
 */
export const BYTES_PER_CHARGED_REQUEST = 16 * 1024;
export const SPANS_PER_CHARGED_REQUEST = 10;

export class BatchCharge {
  /** The request taken when the token was admitted. */
  private charged = 1;

  constructor(private readonly token: AuthenticatedToken) {}

  forBytes(bytes: number): Promise<Response | undefined> {
    return this.upTo(Math.ceil(bytes / BYTES_PER_CHARGED_REQUEST));
  }

  forSpans(spans: number): Promise<Response | undefined> {
    return this.upTo(Math.ceil(spans / SPANS_PER_CHARGED_REQUEST));
  }

  /** Pays what is still owed of `requests` in all, at once or not at all; the 429 to answer when it cannot. */
  private async upTo(requests: number): Promise<Response | undefined> {
    if (requests <= this.charged) return undefined;
    const refusal = await chargeAgentToken(this.token, requests - this.charged);
    if (!refusal) this.charged = requests;
    return refusal;
  }
}
