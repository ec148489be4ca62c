import { networkStatus } from '../faults/writers';

/**
 * The 64-way claim race over HTTP: 64 agents claim one Idempotency-Key at the
 * same moment, spread over every instance. Exactly one may be told `acquired`;
 * every other must be told the key is in progress (409). Any other answer — a
 * second winner, a 5xx, a network error — is counted against it.
 */
export interface ClaimRaceResult {
  rounds: number;
  /** Rounds that did not have exactly one winner. */
  wrongWinners: string[];
  /** Answers other than 200 acquired and 409 KEY_IN_PROGRESS. */
  otherAnswers: string[];
}

export async function runClaimRace(
  baseUrls: string[],
  token: string,
  options: { rounds: number; claimants: number; prefix: string },
): Promise<ClaimRaceResult> {
  const result: ClaimRaceResult = { rounds: options.rounds, wrongWinners: [], otherAnswers: [] };
  for (let round = 0; round < options.rounds; round += 1) {
    const key = `${options.prefix}-race-${round}`;
    const answers = await Promise.all(
      Array.from({ length: options.claimants }, async (_, claimant) => {
        const baseUrl = baseUrls[claimant % baseUrls.length]!;
        try {
          const response = await fetch(`${baseUrl}/api/v1/keys/claim`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ key, requestHash: 'same-payload', holder: `claimant-${claimant}` }),
            signal: AbortSignal.timeout(30_000),
          });
          const body = (await response.json().catch(() => ({}))) as { outcome?: string; code?: string };
          return `${response.status} ${body.outcome ?? body.code ?? ''}`.trim();
        } catch (error) {
          return networkStatus(error);
        }
      }),
    );
    const winners = answers.filter((answer) => answer === '200 acquired').length;
    if (winners !== 1) result.wrongWinners.push(`${key}: ${winners} winners`);
    for (const answer of answers)
      if (answer !== '200 acquired' && answer !== '409 KEY_IN_PROGRESS') result.otherAnswers.push(`${key}: ${answer}`);
  }
  return result;
}
