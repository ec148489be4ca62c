/** The fleet's own count of what it did, to compare with what the console shows. */
export interface FleetTally {
  tasksStarted: number;
  /** Tasks whose every step completed (a redelivered, already finished task counts once). */
  completedTaskIds: Set<string>;
  /** Step bodies that ran: each is one attempt the console should count. */
  attempts: number;
  holdIds: Set<number>;
  deadLetterIds: Set<number>;
  replays: number;
}

export function emptyTally(): FleetTally {
  return {
    tasksStarted: 0,
    completedTaskIds: new Set(),
    attempts: 0,
    holdIds: new Set(),
    deadLetterIds: new Set(),
    replays: 0,
  };
}
