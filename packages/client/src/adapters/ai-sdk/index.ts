import type { LanguageModelMiddleware, Tool } from 'ai';
import { type HoldfastModelOptions, holdfastModelMiddleware } from './model-middleware';
import { type HoldfastTask, stepCounter } from './task-binding';
import { holdfastTool, type HoldfastToolOptions } from './tool-wrapper';

/**
 * The Vercel AI SDK under Holdfast. Per delivery of a task:
 *
 *   const holdfast = holdfastTask({ client, task: { taskId, agent } });
 *   const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: holdfast.model('answer') });
 *   await generateText({ model, maxRetries: 0, tools: { refund: holdfast.tool('refund', refundTool) }, ... });
 *
 * docs/agents/ai-sdk.md says what it guarantees and what it does not.
 */
export function holdfastTask(binding: HoldfastTask): {
  /** A middleware that makes each model call an attempt of `step`. */
  model: (step: string, options?: HoldfastModelOptions) => LanguageModelMiddleware;
  /** The tool, each of whose calls runs once per task as an attempt of `step`. */
  tool: <T extends Tool>(step: string, tool: T, options?: HoldfastToolOptions) => T;
} {
  const counter = stepCounter();
  return {
    model: (step, options) => holdfastModelMiddleware(binding, counter, step, options),
    tool: (step, tool, options) => holdfastTool(binding, counter, step, tool, options),
  };
}

export type { HoldfastTask } from './task-binding';
export type { HoldfastToolOptions } from './tool-wrapper';
export type { HoldfastModelOptions } from './model-middleware';
export { HoldfastStepStopped, HoldfastStepWaiting, StepError } from '../step-loop';
