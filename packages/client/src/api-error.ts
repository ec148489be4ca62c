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
