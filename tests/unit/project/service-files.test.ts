import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every way of running Holdfast as a service runs the same production command,
 * with node as the process that gets the stop signal: bin/holdfast, `npm start`,
 * the systemd unit and the container image. tests/integration/server/service-stop.test.ts
 * signals that command for real; this checks the files do not drift apart.
 */

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const PRODUCTION_COMMAND = 'node --import tsx scripts/start.ts';

/** `Key=value` lines of a systemd unit (the last one wins, as systemd reads them). */
function unitSettings(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) settings.set(match[1]!, match[2]!);
  }
  return settings;
}

describe('the production command', () => {
  it('is what bin/holdfast execs, from the project root, passing its arguments on', () => {
    const script = read('bin/holdfast');
    expect(script.startsWith('#!/bin/sh\n')).toBe(true);
    expect(script).toContain(`exec ${PRODUCTION_COMMAND} "$@"`);
    expect(fs.statSync(path.join(root, 'bin/holdfast')).mode & 0o111).not.toBe(0);
  });

  it('is what `npm start` execs, so no shell sits between npm and node', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(`exec ${PRODUCTION_COMMAND}`);
  });

  it('is what the systemd unit starts, signalling node alone and waiting longer than the drain', () => {
    const unit = unitSettings(read('deploy/systemd/holdfast.service'));
    const home = unit.get('WorkingDirectory');
    expect(unit.get('ExecStart')).toBe(`${home}/bin/holdfast`);
    expect(unit.get('KillMode')).toBe('mixed');
    expect(unit.get('KillSignal') ?? 'SIGTERM').toBe('SIGTERM');
    expect(unit.get('Restart')).toBe('on-failure');
    expect(unit.get('EnvironmentFile')).toBeTruthy();
    expect(unit.get('User')).toBe('holdfast');
    // HOLDFAST_DRAIN_SECONDS' default is 5; PostgreSQL's own stop comes after it.
    expect(Number(unit.get('TimeoutStopSec'))).toBeGreaterThanOrEqual(20);
  });

  it('is the container image CMD in exec form (node is the process `docker stop` signals)', () => {
    const dockerfile = read('deploy/container/Dockerfile');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd && (JSON.parse(cmd) as string[]).join(' ')).toBe(PRODUCTION_COMMAND);
    expect(dockerfile).toMatch(/^STOPSIGNAL SIGTERM$/m);
    expect(dockerfile).toMatch(/^USER node$/m); // the embedded PostgreSQL will not run as root
  });
});
