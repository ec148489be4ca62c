/**
 * What the adapter tests put around an agent's fetch: nothing may leave the machine (any request not for
 * 127.0.0.1 fails, and is counted), and the step protocol's finish answers are kept, to compare the delays
 * slept with the delays Holdfast named.
 */
export function refuseRequestsOffMachine(): { refused: string[]; restore: () => void } {
  const realFetch = globalThis.fetch;
  const refused: string[] = [];
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.hostname !== '127.0.0.1') {
      refused.push(url.href);
      throw new Error(`refused: ${url.href} is not on this machine`);
    }
    return realFetch(input, init);
  }) as typeof fetch;
  return { refused, restore: () => (globalThis.fetch = realFetch) };
}

/** A fetch for the client that appends every finish answer to `answers`. */
export function fetchKeepingFinishAnswers(answers: unknown[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (String(input).endsWith('/api/v1/steps/finish')) answers.push(await response.clone().json());
    return response;
  };
}
