export * from './attempts';
export * from './audit';
export * from './dead-letters';
export * from './holds';
export * from './idempotency-keys';
export * from './leases';
export * from './slots';
export * from './tasks';
