/**
 * Runs the embedded PostgreSQL for Holdfast and stops it when Holdfast goes
 * (started by postgres-process.ts; plain JavaScript so that it runs on node alone).
 *
 * Holdfast starts this process detached, in a process group of its own, so a
 * terminal's Ctrl-C (a signal to the whole foreground group) reaches Holdfast
 * but not PostgreSQL: Holdfast drains its requests first and only then asks
 * for the stop. It asks by closing this process's stdin, which also closes
 * when Holdfast dies however it dies (a crash, SIGKILL, the OOM killer); either
 * way PostgreSQL gets a fast shutdown (SIGINT) and this process exits with
 * PostgreSQL's exit code. The command comes in an environment variable, not in
 * argv, so that only the postmaster's command line names the data directory.
 */
import { spawn } from 'node:child_process';

const COMMAND_VARIABLE = 'HOLDFAST_POSTGRES_COMMAND';
// What ps shows, rather than a second `node` beside Holdfast's own.
process.title = 'holdfast-pg-watchdog';
/** @type {{ binary: string; args: string[]; uid?: number; gid?: number }} */
const command = JSON.parse(process.env[COMMAND_VARIABLE] ?? '{}');
const env = { ...process.env };
delete env[COMMAND_VARIABLE];

const postgres = spawn(command.binary, command.args, {
  stdio: ['ignore', 'inherit', 'inherit'],
  env,
  ...(command.uid === undefined ? {} : { uid: command.uid, gid: command.gid }),
});

let stopAsked = false;
function stopPostgres() {
  if (stopAsked) return;
  stopAsked = true;
  postgres.kill('SIGINT'); // fast shutdown: disconnect clients, checkpoint, exit
}

process.stdin.on('end', stopPostgres);
process.stdin.on('close', stopPostgres);
process.stdin.on('error', stopPostgres);
process.stdin.resume();
// Only a signal sent to this process itself: its group is its own, so no terminal's Ctrl-C gets here.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stopPostgres);

postgres.on('error', (error) => {
  console.error(`[postgres watchdog] could not run ${command.binary}: ${error.message}`);
  process.exit(1);
});
postgres.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
