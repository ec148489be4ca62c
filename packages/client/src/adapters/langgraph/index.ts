/**
 * LangGraph.js under Holdfast: nodes and tasks run as step attempts whose retries Holdfast decides
 * (holdfastRetryPolicy), with results stored and replayed across threads, processes and redeliveries.
 * See docs/agents/langgraph.md.
 */
export { HoldfastStepStopped, HoldfastStepWaiting, StepError } from '../step-loop';
export { type HoldfastNodeOptions, holdfastNode } from './holdfast-node';
export { type HoldfastTaskOptions, holdfastTask } from './holdfast-task';
export { HoldfastRetryDue, holdfastRetryPolicy } from './retry-policy';
export type { HoldfastConnection, HoldfastTask, TaskSource } from './task-source';
