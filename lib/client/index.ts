import type { EndpointResponse } from '../api/responses';
import { endpoints, type EndpointInput, type EndpointName } from '../api/endpoints';

/** A value as it arrives over JSON: dates become ISO strings. */
export type Json<T> = T extends Date ? string : T extends (infer Item)[] ? Json<Item>[] : T extends object ? { [Key in keyof T]: Json<T[Key]> } : T;

/** What each endpoint answers on success: inferred from the schemas the contract test checks real answers against. */
export type ApiResponses = { [Name in EndpointName]: EndpointResponse<Name> };

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
    /** The whole problem document, with its extension members (a step's `reason`, `holdId`, `retryAfterMs`, ...). */
    readonly problem: Record<string, unknown>,
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
        body,
      );
    }
    return body;
  };
  return Object.fromEntries(
    (Object.keys(endpoints) as EndpointName[]).map((name) => [name, (input: unknown, callOptions?: CallOptions) => call(name, input, callOptions)]),
  ) as HoldfastClient;
}

/** runStep over HTTP: the step protocol with the same outcomes as the in-process runStep. */
export { runStep } from './run-step';
export type { RunStepOutcome } from '../core/steps/step-outcome';
