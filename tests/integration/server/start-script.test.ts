import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const projectRoot = path.resolve(import.meta.dirname, '../../..');

/** Runs `npm start`'s script with the given environment and returns how it ended. */
function start(env: Record<string, string>) {
  const result = spawnSync(path.join(projectRoot, 'node_modules/.bin/tsx'), ['scripts/start.ts'], {
    cwd: projectRoot,
    env: { NODE_ENV: 'production', PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    encoding: 'utf8',
    // A safety net for a hung start, not a speed check: a busy two-core machine takes tens of seconds to load it.
    timeout: 90_000,
  });
  return { status: result.status, stderr: result.stderr.trim() };
}

describe('npm start with bad configuration', () => {
  it('stops with one line naming DATABASE_URL when it is malformed', () => {
    const { status, stderr } = start({ DATABASE_URL: 'mysql://root@localhost/app' });
    expect(status).toBe(1);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/DATABASE_URL: must be a URL/);
  });

  it('stops with one line when PORT is not a port', () => {
    const { status, stderr } = start({ PORT: 'eighty' });
    expect(status).toBe(1);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/PORT/);
  });

  it('refuses to serve an open console: DATABASE_URL without AUTH_MODE', () => {
    const { status, stderr } = start({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/holdfast' });
    expect(status).toBe(1);
    expect(stderr).toBe(
      '[holdfast] Invalid environment: AUTH_MODE: must be set (demo or proxy) when DATABASE_URL is set: Holdfast never serves an open console',
    );
  });

  it('refuses demo sign-in on a named database: its admin would be anyone who reaches the port', () => {
    const { status, stderr } = start({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/holdfast',
      AUTH_MODE: 'demo',
      HOST: '0.0.0.0',
    });
    expect(status).toBe(1);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      /^\[holdfast\] Invalid environment: AUTH_MODE: demo sign-in lets anyone in as the admin, so it runs only on the embedded database/,
    );
  });

  it('refuses demo sign-in on the embedded database when HOST is reachable from other machines', () => {
    const { status, stderr } = start({ HOST: '0.0.0.0', HOLDFAST_DATA_DIR: '.data/never-started' });
    expect(status).toBe(1);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^\[holdfast\] Invalid environment: HOST: demo sign-in .* not 0\.0\.0\.0/);
  });

  it('lets demo sign-in past the guard with HOLDFAST_INSECURE_DEMO=1 (it then needs the database like any start)', () => {
    const { status, stderr } = start({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/holdfast',
      AUTH_MODE: 'demo',
      HOST: '0.0.0.0',
      HOLDFAST_INSECURE_DEMO: '1',
    });
    expect(status).toBe(1);
    expect(stderr).toMatch(/Cannot reach the database in DATABASE_URL/);
    expect(stderr).not.toMatch(/Invalid environment/);
  });

  it('stops with one line when the database in DATABASE_URL does not answer', () => {
    const { status, stderr } = start({
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/holdfast',
      AUTH_MODE: 'proxy',
      AUTH_PROXY_SECRET: 'proxy-shared-secret-1',
    });
    expect(status).toBe(1);
    expect(stderr).toBe(
      '[holdfast] Cannot reach the database in DATABASE_URL (ECONNREFUSED): is PostgreSQL running there?',
    );
  });
});
