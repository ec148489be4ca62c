import { afterAll } from 'vitest';
import { killLeftoverServers } from './holdfast-server';

/**
 * After each integration file: no server it started outlives it (see holdfast-server.ts). A server the file
 * stopped itself is not here; one still running is a leak, killed now and named, so that the next files and
 * the browser tests beside them get the machine's CPU back.
 */
afterAll(async () => {
  const killed = await killLeftoverServers();
  if (killed > 0) console.warn(`Killed ${killed} Holdfast server(s) this file left running`);
});
