export * from './audit';
export * from './context';
export * from './database-clock';
export * from './errors';
export * from './keys/claim-key';
export * from './keys/raw-key-name';
export * from './keys/derive-key';
export * from './keys/settle-key';
export * from './keys/sweep-keys';
export * from './kill-switches';
export * from './leases';
export * from './instance-name';
export * from './renewable-lease';
export * from './record-attempt';
export * from './slots/force-release';
export * from './slots/runs';
export * from './slots/slot-lock';
export * from './retry/decide-retry';
export * from './retry/step-error';
export * from './budgets/attempt-lifecycle';
export * from './budgets/task-budget';
export * from './dead-letters/dead-letter-task';
export * from './dead-letters/drain-redrives';
export * from './dead-letters/redrive';
export * from './holds/open-hold';
export * from './holds/settle-hold';
export * from './run-step';
export * from './holds/freeze-idle-tasks';
export * from './sweeps';
export * from './authorization';
export * from './identity/api-tokens';
export * from './identity/people';
export * from './dead-letters/dead-letter-filter';
export * from './dead-letters/bulk-redrive';
export * from './tasks/finish-task';
export * from './tasks/task-agent';
export * from './steps/step-protocol';
export * from './steps/begin-step';
export * from './steps/finish-step';
export * from './retry-pools/pool-level';
export * from './retry-pools/pool-usage';
export {
  describeBrakeRefusals,
  redriveBrakesRefusing,
  type BrakeRefusal,
  type RedriveHistory,
} from './dead-letters/redrive-brakes';
export * from './holds/reconcile-holds';
export * from './holds/escalate-options';
export * from './holds/escalate-uncertain-keys';
export * from './holds/escalate-stale-locks';
export * from './retry-pools/manage-pools-input';
export * from './retry-pools/manage-pools';
