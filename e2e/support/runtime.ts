import path from 'node:path';

/** Where the server under test writes its database URL, so tests can reach the same database. */
export const e2eRuntimeFile = path.resolve(import.meta.dirname, '../../.data/e2e/runtime.json');
