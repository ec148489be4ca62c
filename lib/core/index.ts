export type { CoreContext } from './context';
export * from './errors';
export * from './record-attempt';
