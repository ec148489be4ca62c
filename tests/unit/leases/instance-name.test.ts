import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { INSTANCE_NAME, isGoneInstance } from '../../../packages/engine/src/core/leases/instance-name';

describe('isGoneInstance', () => {
  it('names this process as host:pid:tag, and does not call it gone', () => {
    expect(INSTANCE_NAME).toMatch(new RegExp(`^${hostname()}:${process.pid}:[0-9a-f]{6}$`));
    expect(isGoneInstance(INSTANCE_NAME)).toBe(false);
    expect(isGoneInstance(`${INSTANCE_NAME}/1a2b3c4d`)).toBe(false);
  });

  it('calls gone an earlier process of this machine: one whose pid runs nothing, or that had this pid', () => {
    const exited = spawnSync(process.execPath, ['-e', '']);
    expect(isGoneInstance(`${hostname()}:${exited.pid}:abcdef`)).toBe(true);
    expect(isGoneInstance(`${hostname()}:${process.pid}:zzzzzz/1a2b3c4d`)).toBe(true);
  });

  it('never judges another machine’s holder, a live process, or a name it cannot read', () => {
    expect(isGoneInstance(`not-${hostname()}:999999:abcdef`)).toBe(false);
    expect(isGoneInstance(`${hostname()}:1:abcdef`)).toBe(false);
    expect(isGoneInstance('instance-a')).toBe(false);
    expect(isGoneInstance(`${hostname()}:x:abcdef`)).toBe(false);
  });
});
