/**
 * The OpenAI Agents SDK under Holdfast: a model wrapper (each model call a step attempt, replayed to
 * duplicates) and a tool wrapper (each tool call a step keyed by its content). See
 * docs/agents/openai-agents.md.
 */
export { HoldfastStepStopped, HoldfastStepWaiting, StepError } from '../step-loop';
export type { HoldfastConnection, HoldfastTask } from './holdfast-task';
export { holdfastModel, holdfastModelProvider, type HoldfastModelOptions } from './holdfast-model';
export { holdfastAttemptOf, holdfastTool, type HoldfastToolOptions } from './holdfast-tool';
export { stepErrorOfModelFailure } from './model-failure';
