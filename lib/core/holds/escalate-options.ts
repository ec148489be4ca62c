/** Who gets an escalated hold when the item names no task (a key or a run claimed outside a task). */
export const DEFAULT_ESCALATION_OWNER = 'team:platform';

/** What an escalation sweep runs with; every field has a default. */
export interface EscalationOptions {
  /** How long the condition must have lasted before a person is asked to look. */
  afterMs?: number;
  /** Owner of holds on items whose task (and so whose owner) is unknown. */
  defaultOwner?: string;
  /** The sweep's time; tests pass a later one instead of waiting. Defaults to the context's clock. */
  now?: Date;
  limit?: number;
}

/** One item the sweep escalated; `holdCreated` is false when an open hold on it already existed. */
export interface EscalatedItem {
  itemId: string;
  holdId: number;
  holdCreated: boolean;
  owner: string;
}
