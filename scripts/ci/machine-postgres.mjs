// Small helper for .ci/run: talks to the machine's own PostgreSQL.
//   node scripts/ci/machine-postgres.mjs check         prints the server version, exits 1 if nothing answers
//   node scripts/ci/machine-postgres.mjs create NAME   creates database NAME
//   node scripts/ci/machine-postgres.mjs drop NAME     drops database NAME
import postgres from 'postgres';

const serverUrl = process.env.MACHINE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const [command, name] = process.argv.slice(2);
const sql = postgres(`${serverUrl}/postgres`, { max: 1, connect_timeout: 5, onnotice() {} });

try {
  if (command === 'check') {
    const [row] = await sql`show server_version`;
    console.log(row.server_version);
  } else if ((command === 'create' || command === 'drop') && /^[a-z0-9_]+$/.test(name ?? '')) {
    await sql.unsafe(
      command === 'create' ? `create database "${name}"` : `drop database if exists "${name}" with (force)`,
    );
  } else {
    throw new Error('usage: machine-postgres.mjs check | create NAME | drop NAME');
  }
} catch (error) {
  console.error(error.code ?? error.message);
  process.exitCode = 1;
} finally {
  await sql.end({ timeout: 5 });
}
