import { endpoints, type EndpointName } from '@holdfast/protocol/api/endpoints';
import { HoldfastApiError } from './api-error';
import type { CallOptions, HoldfastClient, HoldfastClientOptions } from './client-types';

export { HoldfastApiError } from './api-error';
export type { ApiResponses, CallOptions, HoldfastClient, HoldfastClientOptions, Json } from './client-types';

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
    (Object.keys(endpoints) as EndpointName[]).map((name) => [
      name,
      (input: unknown, callOptions?: CallOptions) => call(name, input, callOptions),
    ]),
  ) as HoldfastClient;
}

/** runStep over HTTP: the step protocol with the same outcomes as the in-process runStep. */
export { runStep } from './run-step';
export type { RunStepOutcome, StepAttempt, StepBody } from '@holdfast/protocol/steps/step-outcome';
export type { BeginStepInput } from '@holdfast/protocol/steps/step-protocol';
/**
 * What a step body throws to say how it failed. Exported here so an agent that installs the
 * client as a package throws the very class runStep recognises (an `instanceof` check).
 */
export { StepError } from '@holdfast/protocol/steps/step-error';
export type { ErrorClass } from '@holdfast/protocol/enums';
