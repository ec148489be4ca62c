import { chance } from './chance';

/** Prices per million tokens, in micro-dollars, like a mid-size hosted model. */
const INPUT_PRICE_PER_MILLION = 3_000_000;
const OUTPUT_PRICE_PER_MILLION = 15_000_000;

export interface ModelCall {
  text: string;
  costMicros: number;
  inputTokens: number;
  outputTokens: number;
}

/** A simulated model call: tokens drawn from the seed, cost from the token prices. */
export function callModel(
  seed: number,
  taskId: string,
  step: string,
  attemptNumber: number,
  prompt: string,
): ModelCall {
  const inputTokens = 400 + Math.floor(chance(seed, 'in', taskId, step, attemptNumber) * 2_000);
  const outputTokens = 100 + Math.floor(chance(seed, 'out', taskId, step, attemptNumber) * 700);
  const costMicros = Math.round(
    (inputTokens * INPUT_PRICE_PER_MILLION + outputTokens * OUTPUT_PRICE_PER_MILLION) / 1_000_000,
  );
  return { text: `${prompt} (${outputTokens} tokens)`, costMicros, inputTokens, outputTokens };
}
