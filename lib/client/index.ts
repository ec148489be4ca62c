import type { ClaimOutcome } from '../core/keys/claim-key';
import type { AcquireSlotOutcome } from '../core/slots/slot-lock';
import type { Attempt, DeadLetter, Hold, Redrive, Run } from '../db/schema';
import { endpoints, type EndpointInput, type EndpointName } from '../api/endpoints';

/** A value as it arrives over JSON: dates become ISO strings. */
export type Json<T> = T extends Date ? string : T extends (infer Item)[] ? Json<Item>[] : T extends object ? { [Key in keyof T]: Json<T[Key]> } : T;

/** What each endpoint answers on success. */
export interface ApiResponses {
  recordAttempt: { attempt: Json<Attempt>; duplicate: boolean };
  recordAttempts: { recorded: number; duplicates: number };
  claimKey: Json<Extract<ClaimOutcome, { outcome: 'acquired' | 'replay' }>>;
  completeKey: { ok: true };
  failKey: { ok: true };
  startRun: { run: Json<Run> };
  heartbeatRun: { ok: true };
  finishRun: { ok: true };
  acquireSlot: Json<Extract<AcquireSlotOutcome, { outcome: 'acquired' }>>;
  heartbeatSlot: { expiresAt: string };
  releaseSlot: { ok: true };
  recordEvidence: { ok: true };
  openHold: { hold: Json<Hold>; created: boolean };
  deadLetter: { deadLetter: Json<DeadLetter>; hold: Json<Hold> };
  claimRedrives: { redrives: Json<Redrive>[] };
  acknowledgeRedrive: { redrive: Json<Redrive>; changed: boolean };
}

/** A problem answer from the API, with its stable code and whether to try again. */
export class HoldfastApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    /** False: stop (change the request or ask a person). True: try again after `retryAfterSeconds`. */
    readonly retryable: boolean | undefined,
    readonly retryAfterSeconds: number | undefined,
    readonly fieldErrors: Record<string, string[]> | undefined,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'HoldfastApiError';
  }
}

export interface HoldfastClientOptions {
  /** Where Holdfast listens, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** An API token (hf_...) with the scopes the calls need. */
  token: string;
  /** Another fetch (tests route requests in-process through it). */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Send the same key when retrying a call, so it acts once. */
  idempotencyKey?: string;
}

export type HoldfastClient = { [Name in EndpointName]: (input: EndpointInput<Name>, options?: CallOptions) => Promise<ApiResponses[Name]> };

/** A typed client for the agents' API: one method per endpoint, named as in the OpenAPI document. */
export function createHoldfastClient(options: HoldfastClientOptions): HoldfastClient {
  const send = options.fetch ?? fetch;
  const call = async (name: EndpointName, input: unknown, callOptions: CallOptions = {}) => {
    const spec = endpoints[name];
    const response = await send(new URL(spec.path, options.baseUrl), {
      method: spec.method,
      headers: {
        authorization: `Bearer ${options.token}`,
        'content-type': 'application/json',
        ...(callOptions.idempotencyKey ? { 'idempotency-key': callOptions.idempotencyKey } : {}),
      },
      body: JSON.stringify(input),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      throw new HoldfastApiError(
        response.status,
        String(body.code ?? `HTTP_${response.status}`),
        String(body.detail ?? response.statusText),
        typeof body.retryable === 'boolean' ? body.retryable : undefined,
        typeof body.retryAfterSeconds === 'number' ? body.retryAfterSeconds : undefined,
        body.fieldErrors as Record<string, string[]> | undefined,
      );
    }
    return body;
  };
  return Object.fromEntries(
    (Object.keys(endpoints) as EndpointName[]).map((name) => [name, (input: unknown, callOptions?: CallOptions) => call(name, input, callOptions)]),
  ) as HoldfastClient;
}
