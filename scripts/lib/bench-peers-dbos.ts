/**
 * The DBOS Transact side of `npm run bench:peers`, run as a child process that
 * scripts/lib/dbos-side.ts starts inside a network namespace with loopback
 * alone (so nothing it does can leave the machine); it reaches PostgreSQL
 * through a unix socket, which a namespace does not cut off. The parent sends
 * it one command at a time over node's IPC channel and it answers each.
 *
 * A step here is a workflow of one `DBOS.runStep`, started with its own
 * workflow ID; a repeat starts the workflow again with an ID that already
 * completed, and DBOS answers with the recorded result without running the
 * step. The body counts its runs, so the parent can check that no repeat ran it.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { measureLoops } from './bench-compare';
import type { DbosCommand, DbosReply } from './dbos-side';

const STEP_RESULT = 'ok';

const systemDatabaseUrl = process.env.BENCH_DBOS_SYSTEM_DATABASE_URL;
if (!systemDatabaseUrl || !process.send) {
  throw new Error(
    'bench-peers-dbos: start it through scripts/lib/dbos-side.ts (IPC and BENCH_DBOS_SYSTEM_DATABASE_URL)',
  );
}

let bodyRuns = 0;
const stepWorkflow = DBOS.registerWorkflow(
  // The input only makes each workflow's recorded input differ, as a real step's would.
  async (_n: number) =>
    DBOS.runStep(
      async () => {
        bodyRuns += 1;
        return STEP_RESULT;
      },
      { name: 'call_model' },
    ),
  { name: 'benchStep' },
);

const run = randomUUID().slice(0, 8);
let sequence = 0;
let repeatIds: string[] = [];
let repeatCursor = 0;

async function startStep(workflowId: string, n: number): Promise<void> {
  const result = await DBOS.withNextWorkflowID(workflowId, () => stepWorkflow(n));
  if (result !== STEP_RESULT) throw new Error(`bench: DBOS workflow ${workflowId} returned ${String(result)}`);
}

async function answer(command: DbosCommand): Promise<unknown> {
  switch (command.op) {
    case 'prepareRepeats': {
      repeatIds = Array.from({ length: command.count }, (_, index) => `peers-dbos-repeat-${run}-${index}`);
      for (const [index, id] of repeatIds.entries()) await startStep(id, index);
      return null;
    }
    case 'measure': {
      const before = bodyRuns;
      const figures = await measureLoops(command.clients, command.seconds, async () => {
        if (command.kind === 'new') {
          sequence += 1;
          await startStep(`peers-dbos-${run}-${sequence}`, sequence);
        } else {
          const index = repeatCursor++ % repeatIds.length;
          await startStep(repeatIds[index]!, index);
        }
      });
      return { figures, bodyRuns: bodyRuns - before };
    }
    case 'stop':
      await DBOS.shutdown();
      return null;
  }
}

DBOS.setConfig({
  name: 'holdfast-bench-peers',
  systemDatabaseUrl,
  systemDatabasePoolSize: Number(process.env.BENCH_DBOS_POOL_SIZE ?? 10),
  // Off explicitly: no OTLP export of traces or logs, no spans.
  enableOTLP: false,
  tracingEnabled: false,
  otlpTracesEndpoints: [],
  otlpLogsEndpoints: [],
  logLevel: 'error',
});
// No conductor key: DBOS then opens no Conductor connection (the only outbound socket it has besides PostgreSQL).
await DBOS.launch();

process.on('message', (message: DbosCommand & { id: number }) => {
  void answer(message).then(
    (value) => {
      process.send!({ id: message.id, ok: true, value } satisfies DbosReply);
      if (message.op === 'stop') process.disconnect();
    },
    (error: unknown) => process.send!({ id: message.id, ok: false, error: String(error) } satisfies DbosReply),
  );
});
process.send({
  id: 0,
  ok: true,
  value: { interfaces: Object.keys(os.networkInterfaces()) },
} satisfies DbosReply);
