import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * This process as the other instances on the same database see it, in the
 * holder of every lease it takes: host and pid say where to look, and a random
 * tag tells apart two processes that got the same pid (containers, restarts).
 */
export const INSTANCE_NAME = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
