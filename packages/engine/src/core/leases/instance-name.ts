import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * This process as the other instances on the same database see it, in the
 * holder of every lease it takes: host and pid say where to look, and a random
 * tag tells apart two processes that got the same pid (containers, restarts).
 */
export const INSTANCE_NAME = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

/**
 * True when a lease holder is an instance of this machine that is known to be
 * gone: its pid runs nothing, or is this process's own under another tag (a
 * restarted container gets the same pid). Its lease need not be waited out.
 * A holder of another machine is never judged: only its TTL says it died.
 */
export function isGoneInstance(holder: string): boolean {
  const instance = holder.split('/')[0]!;
  const [host, pidText, tag] = instance.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !tag || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return instance !== INSTANCE_NAME;
  try {
    process.kill(pid, 0); // signal 0 only asks whether the process exists
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
