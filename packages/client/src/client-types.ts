import type { EndpointInput, EndpointName } from '@holdfast/protocol/api/endpoints';
import type { EndpointResponse } from '@holdfast/protocol/api/responses';

/** A value as it arrives over JSON: dates become ISO strings. */
export type Json<T> = T extends Date
  ? string
  : T extends (infer Item)[]
    ? Json<Item>[]
    : T extends object
      ? { [Key in keyof T]: Json<T[Key]> }
      : T;

/** What each endpoint answers on success: inferred from the schemas the contract test checks real answers against. */
export type ApiResponses = { [Name in EndpointName]: EndpointResponse<Name> };

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

export type HoldfastClient = {
  [Name in EndpointName]: (input: EndpointInput<Name>, options?: CallOptions) => Promise<ApiResponses[Name]>;
};
