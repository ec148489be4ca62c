export * from './attempts';
